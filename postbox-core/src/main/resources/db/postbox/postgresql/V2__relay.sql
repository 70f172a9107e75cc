-- Postbox schema, version 2, PostgreSQL: what the relay and the admin operations need.

-- The relay publishes an event only when no earlier event of its aggregate is unfinished (pending,
-- publishing, failed or dead). This partial index holds exactly those rows, so the check is one short
-- probe however much published history an aggregate has.
CREATE INDEX biz_outbox_event_idx_aggregate_unfinished ON biz_outbox_event (aggregate_type, aggregate_id, id)
    WHERE publish_status IN (0, 1, 3, 5);

-- Who moved an event on by hand (retry, cancel), when and why.
CREATE TABLE biz_admin_log (
    id          BIGINT        NOT NULL,
    table_name  VARCHAR(64)   NOT NULL,
    event_no    VARCHAR(64)   NOT NULL,
    action      VARCHAR(16)   NOT NULL,
    from_status SMALLINT      NOT NULL,
    actor       VARCHAR(128)  NOT NULL,
    reason      VARCHAR(500)  NOT NULL,
    create_time TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    CONSTRAINT biz_admin_log_pk PRIMARY KEY (id)
);
COMMENT ON TABLE biz_admin_log IS 'Manual retry/cancel of outbox and message events: who, when, why';
CREATE INDEX biz_admin_log_idx_event_no ON biz_admin_log (event_no, id);
