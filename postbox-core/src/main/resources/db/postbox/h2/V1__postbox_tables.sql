-- Postbox schema, version 1, H2 2.x (for embedded use, demos and tests).
-- Tables and indexes of seed 000 (biz_message_event, biz_outbox_event), plus the consume log and
-- compensation log of seed 003 and *_archive twins. Names start with the table prefix "biz_";
-- the programmatic installer (Postbox#schema()) rewrites it to the configured prefix.
--
-- Adaptations from seed 000's MySQL DDL:
--   BIGINT UNSIGNED -> BIGINT: H2 has no unsigned types; Postbox ids are positive 63-bit.
--   DATETIME -> TIMESTAMP(3) WITH TIME ZONE: an absolute instant, as on PostgreSQL.
--   JSON -> JSON: H2's own JSON type (Postbox binds values with FORMAT JSON). H2 stores JSON normalized
--     (no insignificant whitespace), unlike PostgreSQL and MariaDB, which keep the payload verbatim.
--   COMMENT '...' -> COMMENT ON; ON UPDATE CURRENT_TIMESTAMP dropped (Postbox sets update_time).
--   Index names are schema-wide in H2, so each carries its table name; H2 has no partial indexes,
--   so the unfinished-work index of PostgreSQL is (status, id) here, as on MySQL.

CREATE TABLE biz_message_event (
    id               BIGINT        NOT NULL,
    event_no         VARCHAR(64)   NOT NULL,
    event_type       VARCHAR(64)   NOT NULL,
    biz_type         VARCHAR(64)   NOT NULL,
    biz_id           VARCHAR(64)   NOT NULL,
    event_source     VARCHAR(64)   NOT NULL,
    event_payload    JSON          NOT NULL,
    event_status     TINYINT       DEFAULT 0 NOT NULL,
    retry_count      INT           DEFAULT 0 NOT NULL,
    max_retry_count  INT           DEFAULT 3 NOT NULL,
    next_retry_time  TIMESTAMP(3) WITH TIME ZONE,
    last_handle_time TIMESTAMP(3) WITH TIME ZONE,
    success_time     TIMESTAMP(3) WITH TIME ZONE,
    fail_reason      VARCHAR(1000),
    trace_id         VARCHAR(128),
    remark           VARCHAR(500),
    version          INT           DEFAULT 0 NOT NULL,
    deleted          TINYINT       DEFAULT 0 NOT NULL,
    create_time      TIMESTAMP(3) WITH TIME ZONE DEFAULT CURRENT_TIMESTAMP NOT NULL,
    update_time      TIMESTAMP(3) WITH TIME ZONE DEFAULT CURRENT_TIMESTAMP NOT NULL,
    CONSTRAINT biz_message_event_pk PRIMARY KEY (id),
    CONSTRAINT biz_message_event_uk_event_no UNIQUE (event_no)
);
COMMENT ON TABLE biz_message_event IS 'Business message events (seed 000)';
COMMENT ON COLUMN biz_message_event.event_status IS '0 pending, 1 processing, 2 succeeded, 3 failed (will retry), 4 cancelled, 5 dead';
CREATE INDEX biz_message_event_idx_status_retry_time ON biz_message_event (event_status, next_retry_time, retry_count);
CREATE INDEX biz_message_event_idx_biz_type_biz_id ON biz_message_event (biz_type, biz_id, id);
CREATE INDEX biz_message_event_idx_event_type_create_time ON biz_message_event (event_type, create_time);
CREATE INDEX biz_message_event_idx_trace_id ON biz_message_event (trace_id);
CREATE INDEX biz_message_event_idx_create_time ON biz_message_event (create_time);
CREATE INDEX biz_message_event_idx_status_id ON biz_message_event (event_status, id);

CREATE TABLE biz_outbox_event (
    id                BIGINT        NOT NULL,
    event_no          VARCHAR(64)   NOT NULL,
    aggregate_type    VARCHAR(64)   NOT NULL,
    aggregate_id      VARCHAR(64)   NOT NULL,
    event_type        VARCHAR(64)   NOT NULL,
    event_version     INT           DEFAULT 1 NOT NULL,
    event_source      VARCHAR(64)   NOT NULL,
    publish_channel   VARCHAR(32)   NOT NULL,
    topic             VARCHAR(128),
    routing_key       VARCHAR(128),
    event_payload     JSON          NOT NULL,
    event_headers     JSON,
    publish_status    TINYINT       DEFAULT 0 NOT NULL,
    retry_count       INT           DEFAULT 0 NOT NULL,
    max_retry_count   INT           DEFAULT 5 NOT NULL,
    next_retry_time   TIMESTAMP(3) WITH TIME ZONE,
    locked_by         VARCHAR(128),
    lock_until        TIMESTAMP(3) WITH TIME ZONE,
    last_publish_time TIMESTAMP(3) WITH TIME ZONE,
    published_time    TIMESTAMP(3) WITH TIME ZONE,
    fail_reason       VARCHAR(1000),
    trace_id          VARCHAR(128),
    remark            VARCHAR(500),
    version           INT           DEFAULT 0 NOT NULL,
    deleted           TINYINT       DEFAULT 0 NOT NULL,
    create_time       TIMESTAMP(3) WITH TIME ZONE DEFAULT CURRENT_TIMESTAMP NOT NULL,
    update_time       TIMESTAMP(3) WITH TIME ZONE DEFAULT CURRENT_TIMESTAMP NOT NULL,
    CONSTRAINT biz_outbox_event_pk PRIMARY KEY (id),
    CONSTRAINT biz_outbox_event_uk_event_no UNIQUE (event_no)
);
COMMENT ON TABLE biz_outbox_event IS 'Transactional outbox (seed 000)';
COMMENT ON COLUMN biz_outbox_event.publish_status IS '0 pending, 1 publishing, 2 published, 3 failed (will retry), 4 cancelled, 5 dead';
CREATE INDEX biz_outbox_event_idx_status_retry_time ON biz_outbox_event (publish_status, next_retry_time, retry_count);
CREATE INDEX biz_outbox_event_idx_status_lock_until ON biz_outbox_event (publish_status, lock_until);
CREATE INDEX biz_outbox_event_idx_aggregate ON biz_outbox_event (aggregate_type, aggregate_id, id);
CREATE INDEX biz_outbox_event_idx_event_type_create_time ON biz_outbox_event (event_type, create_time);
CREATE INDEX biz_outbox_event_idx_topic_create_time ON biz_outbox_event (topic, create_time);
CREATE INDEX biz_outbox_event_idx_trace_id ON biz_outbox_event (trace_id);
CREATE INDEX biz_outbox_event_idx_create_time ON biz_outbox_event (create_time);
CREATE INDEX biz_outbox_event_idx_status_id ON biz_outbox_event (publish_status, id);

CREATE TABLE biz_consume_log (
    id             BIGINT        NOT NULL,
    consumer       VARCHAR(128)  NOT NULL,
    event_no       VARCHAR(64)   NOT NULL,
    event_type     VARCHAR(64),
    consume_status VARCHAR(16)   NOT NULL,
    create_time    TIMESTAMP(3) WITH TIME ZONE DEFAULT CURRENT_TIMESTAMP NOT NULL,
    update_time    TIMESTAMP(3) WITH TIME ZONE DEFAULT CURRENT_TIMESTAMP NOT NULL,
    CONSTRAINT biz_consume_log_pk PRIMARY KEY (id),
    CONSTRAINT biz_consume_log_uk_consumer_event_no UNIQUE (consumer, event_no)
);
CREATE INDEX biz_consume_log_idx_create_time ON biz_consume_log (create_time);

CREATE TABLE biz_compensation_log (
    id                BIGINT        NOT NULL,
    biz_type          VARCHAR(64)   NOT NULL,
    biz_key           VARCHAR(64)   NOT NULL,
    action_type       VARCHAR(64)   NOT NULL,
    compensate_status VARCHAR(16)   NOT NULL,
    attempts          INT           DEFAULT 0 NOT NULL,
    last_error        VARCHAR(1000),
    create_time       TIMESTAMP(3) WITH TIME ZONE DEFAULT CURRENT_TIMESTAMP NOT NULL,
    update_time       TIMESTAMP(3) WITH TIME ZONE DEFAULT CURRENT_TIMESTAMP NOT NULL,
    CONSTRAINT biz_compensation_log_pk PRIMARY KEY (id),
    CONSTRAINT biz_compensation_log_uk_biz_action UNIQUE (biz_type, biz_key, action_type)
);
CREATE INDEX biz_compensation_log_idx_status_update_time ON biz_compensation_log (compensate_status, update_time);
CREATE INDEX biz_compensation_log_idx_create_time ON biz_compensation_log (create_time);

CREATE TABLE biz_message_event_archive (
    id               BIGINT        NOT NULL,
    event_no         VARCHAR(64)   NOT NULL,
    event_type       VARCHAR(64)   NOT NULL,
    biz_type         VARCHAR(64)   NOT NULL,
    biz_id           VARCHAR(64)   NOT NULL,
    event_source     VARCHAR(64)   NOT NULL,
    event_payload    JSON          NOT NULL,
    event_status     TINYINT       DEFAULT 0 NOT NULL,
    retry_count      INT           DEFAULT 0 NOT NULL,
    max_retry_count  INT           DEFAULT 3 NOT NULL,
    next_retry_time  TIMESTAMP(3) WITH TIME ZONE,
    last_handle_time TIMESTAMP(3) WITH TIME ZONE,
    success_time     TIMESTAMP(3) WITH TIME ZONE,
    fail_reason      VARCHAR(1000),
    trace_id         VARCHAR(128),
    remark           VARCHAR(500),
    version          INT           DEFAULT 0 NOT NULL,
    deleted          TINYINT       DEFAULT 0 NOT NULL,
    create_time      TIMESTAMP(3) WITH TIME ZONE NOT NULL,
    update_time      TIMESTAMP(3) WITH TIME ZONE NOT NULL,
    archived_time    TIMESTAMP(3) WITH TIME ZONE DEFAULT CURRENT_TIMESTAMP NOT NULL,
    CONSTRAINT biz_message_event_archive_pk PRIMARY KEY (id)
);
CREATE INDEX biz_message_event_archive_idx_event_no ON biz_message_event_archive (event_no);
CREATE INDEX biz_message_event_archive_idx_biz ON biz_message_event_archive (biz_type, biz_id);
CREATE INDEX biz_message_event_archive_idx_create_time ON biz_message_event_archive (create_time);

CREATE TABLE biz_outbox_event_archive (
    id                BIGINT        NOT NULL,
    event_no          VARCHAR(64)   NOT NULL,
    aggregate_type    VARCHAR(64)   NOT NULL,
    aggregate_id      VARCHAR(64)   NOT NULL,
    event_type        VARCHAR(64)   NOT NULL,
    event_version     INT           DEFAULT 1 NOT NULL,
    event_source      VARCHAR(64)   NOT NULL,
    publish_channel   VARCHAR(32)   NOT NULL,
    topic             VARCHAR(128),
    routing_key       VARCHAR(128),
    event_payload     JSON          NOT NULL,
    event_headers     JSON,
    publish_status    TINYINT       DEFAULT 0 NOT NULL,
    retry_count       INT           DEFAULT 0 NOT NULL,
    max_retry_count   INT           DEFAULT 5 NOT NULL,
    next_retry_time   TIMESTAMP(3) WITH TIME ZONE,
    locked_by         VARCHAR(128),
    lock_until        TIMESTAMP(3) WITH TIME ZONE,
    last_publish_time TIMESTAMP(3) WITH TIME ZONE,
    published_time    TIMESTAMP(3) WITH TIME ZONE,
    fail_reason       VARCHAR(1000),
    trace_id          VARCHAR(128),
    remark            VARCHAR(500),
    version           INT           DEFAULT 0 NOT NULL,
    deleted           TINYINT       DEFAULT 0 NOT NULL,
    create_time       TIMESTAMP(3) WITH TIME ZONE NOT NULL,
    update_time       TIMESTAMP(3) WITH TIME ZONE NOT NULL,
    archived_time     TIMESTAMP(3) WITH TIME ZONE DEFAULT CURRENT_TIMESTAMP NOT NULL,
    CONSTRAINT biz_outbox_event_archive_pk PRIMARY KEY (id)
);
CREATE INDEX biz_outbox_event_archive_idx_event_no ON biz_outbox_event_archive (event_no);
CREATE INDEX biz_outbox_event_archive_idx_aggregate ON biz_outbox_event_archive (aggregate_type, aggregate_id);
CREATE INDEX biz_outbox_event_archive_idx_create_time ON biz_outbox_event_archive (create_time);

CREATE TABLE biz_consume_log_archive (
    id             BIGINT        NOT NULL,
    consumer       VARCHAR(128)  NOT NULL,
    event_no       VARCHAR(64)   NOT NULL,
    event_type     VARCHAR(64),
    consume_status VARCHAR(16)   NOT NULL,
    create_time    TIMESTAMP(3) WITH TIME ZONE NOT NULL,
    update_time    TIMESTAMP(3) WITH TIME ZONE NOT NULL,
    archived_time  TIMESTAMP(3) WITH TIME ZONE DEFAULT CURRENT_TIMESTAMP NOT NULL,
    CONSTRAINT biz_consume_log_archive_pk PRIMARY KEY (id)
);
CREATE INDEX biz_consume_log_archive_idx_event_no ON biz_consume_log_archive (consumer, event_no);

CREATE TABLE biz_compensation_log_archive (
    id                BIGINT        NOT NULL,
    biz_type          VARCHAR(64)   NOT NULL,
    biz_key           VARCHAR(64)   NOT NULL,
    action_type       VARCHAR(64)   NOT NULL,
    compensate_status VARCHAR(16)   NOT NULL,
    attempts          INT           DEFAULT 0 NOT NULL,
    last_error        VARCHAR(1000),
    create_time       TIMESTAMP(3) WITH TIME ZONE NOT NULL,
    update_time       TIMESTAMP(3) WITH TIME ZONE NOT NULL,
    archived_time     TIMESTAMP(3) WITH TIME ZONE DEFAULT CURRENT_TIMESTAMP NOT NULL,
    CONSTRAINT biz_compensation_log_archive_pk PRIMARY KEY (id)
);
CREATE INDEX biz_compensation_log_archive_idx_biz ON biz_compensation_log_archive (biz_type, biz_key, action_type);
