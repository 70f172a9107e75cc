-- Postbox schema, version 2, H2: what the relay and the admin operations need.

-- Earlier unfinished events of an aggregate block its later ones; status before id keeps the check
-- to short range probes (H2 has no partial indexes).
CREATE INDEX biz_outbox_event_idx_aggregate_status ON biz_outbox_event (aggregate_type, aggregate_id, publish_status, id);

CREATE TABLE biz_admin_log (
    id          BIGINT        NOT NULL,
    table_name  VARCHAR(64)   NOT NULL,
    event_no    VARCHAR(64)   NOT NULL,
    action      VARCHAR(16)   NOT NULL,
    from_status TINYINT       NOT NULL,
    actor       VARCHAR(128)  NOT NULL,
    reason      VARCHAR(500)  NOT NULL,
    create_time TIMESTAMP(3) WITH TIME ZONE DEFAULT CURRENT_TIMESTAMP NOT NULL,
    CONSTRAINT biz_admin_log_pk PRIMARY KEY (id)
);
CREATE INDEX biz_admin_log_idx_event_no ON biz_admin_log (event_no, id);
