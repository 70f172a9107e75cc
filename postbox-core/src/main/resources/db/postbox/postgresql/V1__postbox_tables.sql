-- Postbox schema, version 1, PostgreSQL 15+.
-- Tables and indexes of seed 000 (biz_message_event, biz_outbox_event), plus the consume log and
-- compensation log of seed 003 and *_archive twins. Names start with the table prefix "biz_";
-- the programmatic installer (Postbox#schema()) rewrites it to the configured prefix.
--
-- Type adaptations from seed 000's MySQL DDL:
--   BIGINT UNSIGNED      -> BIGINT: PostgreSQL has no unsigned types; Postbox ids are positive 63-bit.
--   TINYINT              -> SMALLINT: the smallest integer type PostgreSQL has.
--   DATETIME             -> TIMESTAMPTZ(3): an absolute instant, independent of the session time zone;
--                           millisecond precision, the same as DATETIME(3) on MySQL/MariaDB.
--   JSON (payload)       -> JSON: kept verbatim (key order, whitespace, duplicate keys) so a consumer
--                           receives exactly the bytes the producer wrote; still validated on insert,
--                           and JSONB operators work through a cast. Postbox never filters on payload.
--   JSON (headers)       -> JSONB: small key/value maps that operators may filter on (tenantId, ...).
--   COMMENT '...'        -> COMMENT ON statements.
--   ON UPDATE CURRENT_TIMESTAMP -> dropped: Postbox sets update_time in every UPDATE it issues.
-- Index names are schema-wide in PostgreSQL, so each carries its table name.

CREATE TABLE biz_message_event (
    id               BIGINT        NOT NULL,
    event_no         VARCHAR(64)   NOT NULL,
    event_type       VARCHAR(64)   NOT NULL,
    biz_type         VARCHAR(64)   NOT NULL,
    biz_id           VARCHAR(64)   NOT NULL,
    event_source     VARCHAR(64)   NOT NULL,
    event_payload    JSON          NOT NULL,
    event_status     SMALLINT      NOT NULL DEFAULT 0,
    retry_count      INT           NOT NULL DEFAULT 0,
    max_retry_count  INT           NOT NULL DEFAULT 3,
    next_retry_time  TIMESTAMPTZ(3),
    last_handle_time TIMESTAMPTZ(3),
    success_time     TIMESTAMPTZ(3),
    fail_reason      VARCHAR(1000),
    trace_id         VARCHAR(128),
    remark           VARCHAR(500),
    version          INT           NOT NULL DEFAULT 0,
    deleted          SMALLINT      NOT NULL DEFAULT 0,
    create_time      TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    update_time      TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    CONSTRAINT biz_message_event_pk PRIMARY KEY (id),
    CONSTRAINT biz_message_event_uk_event_no UNIQUE (event_no)
);
COMMENT ON TABLE biz_message_event IS 'Business message events (seed 000)';
COMMENT ON COLUMN biz_message_event.event_status IS '0 pending, 1 processing, 2 succeeded, 3 failed (will retry), 4 cancelled, 5 dead (retries exhausted; a person decides)';
COMMENT ON COLUMN biz_message_event.retry_count IS 'failed attempts so far';
COMMENT ON COLUMN biz_message_event.max_retry_count IS 'retries allowed after the first attempt; the failure after the last retry makes the event dead';

CREATE INDEX biz_message_event_idx_status_retry_time ON biz_message_event (event_status, next_retry_time, retry_count);
CREATE INDEX biz_message_event_idx_biz_type_biz_id ON biz_message_event (biz_type, biz_id, id);
CREATE INDEX biz_message_event_idx_event_type_create_time ON biz_message_event (event_type, create_time);
CREATE INDEX biz_message_event_idx_trace_id ON biz_message_event (trace_id);
CREATE INDEX biz_message_event_idx_create_time ON biz_message_event (create_time);
-- Added by Postbox: the rows that still need work, in id (= creation) order. A partial index stays as
-- small as the backlog however much finished history the table holds; the pending query and the
-- worker's claim walk it instead of skipping over succeeded rows.
CREATE INDEX biz_message_event_idx_unfinished ON biz_message_event (id) WHERE event_status IN (0, 1, 3);

CREATE TABLE biz_outbox_event (
    id                BIGINT        NOT NULL,
    event_no          VARCHAR(64)   NOT NULL,
    aggregate_type    VARCHAR(64)   NOT NULL,
    aggregate_id      VARCHAR(64)   NOT NULL,
    event_type        VARCHAR(64)   NOT NULL,
    event_version     INT           NOT NULL DEFAULT 1,
    event_source      VARCHAR(64)   NOT NULL,
    publish_channel   VARCHAR(32)   NOT NULL,
    topic             VARCHAR(128),
    routing_key       VARCHAR(128),
    event_payload     JSON          NOT NULL,
    event_headers     JSONB,
    publish_status    SMALLINT      NOT NULL DEFAULT 0,
    retry_count       INT           NOT NULL DEFAULT 0,
    max_retry_count   INT           NOT NULL DEFAULT 5,
    next_retry_time   TIMESTAMPTZ(3),
    locked_by         VARCHAR(128),
    lock_until        TIMESTAMPTZ(3),
    last_publish_time TIMESTAMPTZ(3),
    published_time    TIMESTAMPTZ(3),
    fail_reason       VARCHAR(1000),
    trace_id          VARCHAR(128),
    remark            VARCHAR(500),
    version           INT           NOT NULL DEFAULT 0,
    deleted           SMALLINT      NOT NULL DEFAULT 0,
    create_time       TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    update_time       TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    CONSTRAINT biz_outbox_event_pk PRIMARY KEY (id),
    CONSTRAINT biz_outbox_event_uk_event_no UNIQUE (event_no)
);
COMMENT ON TABLE biz_outbox_event IS 'Transactional outbox (seed 000)';
COMMENT ON COLUMN biz_outbox_event.publish_status IS '0 pending, 1 publishing (leased: locked_by, lock_until), 2 published, 3 failed (will retry at next_retry_time), 4 cancelled, 5 dead (retries exhausted or non-retryable; a person decides)';
COMMENT ON COLUMN biz_outbox_event.retry_count IS 'failed attempts so far';
COMMENT ON COLUMN biz_outbox_event.max_retry_count IS 'retries allowed after the first attempt; the failure after the last retry makes the event dead';

CREATE INDEX biz_outbox_event_idx_status_retry_time ON biz_outbox_event (publish_status, next_retry_time, retry_count);
CREATE INDEX biz_outbox_event_idx_status_lock_until ON biz_outbox_event (publish_status, lock_until);
-- id appended (InnoDB does so implicitly): an aggregate's events come out of the index in id order,
-- which is publication order, and keyset paging over one aggregate needs no sort.
CREATE INDEX biz_outbox_event_idx_aggregate ON biz_outbox_event (aggregate_type, aggregate_id, id);
CREATE INDEX biz_outbox_event_idx_event_type_create_time ON biz_outbox_event (event_type, create_time);
CREATE INDEX biz_outbox_event_idx_topic_create_time ON biz_outbox_event (topic, create_time);
CREATE INDEX biz_outbox_event_idx_trace_id ON biz_outbox_event (trace_id);
CREATE INDEX biz_outbox_event_idx_create_time ON biz_outbox_event (create_time);
-- Added by Postbox: see biz_message_event_idx_unfinished.
CREATE INDEX biz_outbox_event_idx_unfinished ON biz_outbox_event (id) WHERE publish_status IN (0, 1, 3);

-- Consumer idempotency (seed 003, t_consume_log): one row per (consumer, event_no), inserted in the
-- consumer's own transaction; the unique key turns a redelivery into a no-op.
CREATE TABLE biz_consume_log (
    id             BIGINT        NOT NULL,
    consumer       VARCHAR(128)  NOT NULL,
    event_no       VARCHAR(64)   NOT NULL,
    event_type     VARCHAR(64),
    consume_status VARCHAR(16)   NOT NULL,
    create_time    TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    update_time    TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    CONSTRAINT biz_consume_log_pk PRIMARY KEY (id),
    CONSTRAINT biz_consume_log_uk_consumer_event_no UNIQUE (consumer, event_no)
);
COMMENT ON TABLE biz_consume_log IS 'Idempotent consumer log (seed 003)';
CREATE INDEX biz_consume_log_idx_create_time ON biz_consume_log (create_time);

-- Compensation guard (seed 003, t_compensation_log): each (biz_type, biz_key, action_type) runs once.
CREATE TABLE biz_compensation_log (
    id                BIGINT        NOT NULL,
    biz_type          VARCHAR(64)   NOT NULL,
    biz_key           VARCHAR(64)   NOT NULL,
    action_type       VARCHAR(64)   NOT NULL,
    compensate_status VARCHAR(16)   NOT NULL,
    attempts          INT           NOT NULL DEFAULT 0,
    last_error        VARCHAR(1000),
    create_time       TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    update_time       TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    CONSTRAINT biz_compensation_log_pk PRIMARY KEY (id),
    CONSTRAINT biz_compensation_log_uk_biz_action UNIQUE (biz_type, biz_key, action_type)
);
COMMENT ON TABLE biz_compensation_log IS 'Compensation guard log (seed 003); compensate_status RUNNING, DONE or FAILED';
CREATE INDEX biz_compensation_log_idx_status_update_time ON biz_compensation_log (compensate_status, update_time);
CREATE INDEX biz_compensation_log_idx_create_time ON biz_compensation_log (create_time);

-- Archive twins: same columns plus archived_time; only the indexes that lookups of old rows need.
-- event_no is not unique here so that archiving the same row twice (after a restore) cannot fail.
CREATE TABLE biz_message_event_archive (LIKE biz_message_event INCLUDING DEFAULTS INCLUDING COMMENTS);
ALTER TABLE biz_message_event_archive ADD COLUMN archived_time TIMESTAMPTZ(3) NOT NULL DEFAULT now();
ALTER TABLE biz_message_event_archive ADD CONSTRAINT biz_message_event_archive_pk PRIMARY KEY (id);
CREATE INDEX biz_message_event_archive_idx_event_no ON biz_message_event_archive (event_no);
CREATE INDEX biz_message_event_archive_idx_biz ON biz_message_event_archive (biz_type, biz_id);
CREATE INDEX biz_message_event_archive_idx_create_time ON biz_message_event_archive (create_time);

CREATE TABLE biz_outbox_event_archive (LIKE biz_outbox_event INCLUDING DEFAULTS INCLUDING COMMENTS);
ALTER TABLE biz_outbox_event_archive ADD COLUMN archived_time TIMESTAMPTZ(3) NOT NULL DEFAULT now();
ALTER TABLE biz_outbox_event_archive ADD CONSTRAINT biz_outbox_event_archive_pk PRIMARY KEY (id);
CREATE INDEX biz_outbox_event_archive_idx_event_no ON biz_outbox_event_archive (event_no);
CREATE INDEX biz_outbox_event_archive_idx_aggregate ON biz_outbox_event_archive (aggregate_type, aggregate_id);
CREATE INDEX biz_outbox_event_archive_idx_create_time ON biz_outbox_event_archive (create_time);

CREATE TABLE biz_consume_log_archive (LIKE biz_consume_log INCLUDING DEFAULTS INCLUDING COMMENTS);
ALTER TABLE biz_consume_log_archive ADD COLUMN archived_time TIMESTAMPTZ(3) NOT NULL DEFAULT now();
ALTER TABLE biz_consume_log_archive ADD CONSTRAINT biz_consume_log_archive_pk PRIMARY KEY (id);
CREATE INDEX biz_consume_log_archive_idx_event_no ON biz_consume_log_archive (consumer, event_no);

CREATE TABLE biz_compensation_log_archive (LIKE biz_compensation_log INCLUDING DEFAULTS INCLUDING COMMENTS);
ALTER TABLE biz_compensation_log_archive ADD COLUMN archived_time TIMESTAMPTZ(3) NOT NULL DEFAULT now();
ALTER TABLE biz_compensation_log_archive ADD CONSTRAINT biz_compensation_log_archive_pk PRIMARY KEY (id);
CREATE INDEX biz_compensation_log_archive_idx_biz ON biz_compensation_log_archive (biz_type, biz_key, action_type);
