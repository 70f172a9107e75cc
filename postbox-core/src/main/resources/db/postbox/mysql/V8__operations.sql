-- Postbox schema, version 8, MySQL 8 / MariaDB: what the operations console reads besides the event tables.
-- Every table here is written off the hot path: an attempt row only when a publish or a handler fails (or a
-- lease is taken over), an action row only when a person acts, an instance row and a stats row once per
-- heartbeat of a relay or worker. A successful publish writes nothing new. Times are UTC.

CREATE TABLE biz_event_attempt (
    id              BIGINT UNSIGNED NOT NULL AUTO_INCREMENT COMMENT 'id',
    event_kind      VARCHAR(16)   NOT NULL COMMENT 'OUTBOX or MESSAGE',
    event_id        BIGINT UNSIGNED NOT NULL COMMENT 'id of the event',
    event_no        VARCHAR(64)   NOT NULL COMMENT 'idempotency key of the event',
    attempt         INT           NOT NULL COMMENT 'the retry count after this attempt (1 = the first attempt failed)',
    outcome         VARCHAR(16)   NOT NULL COMMENT 'FAILED (retry due at next_retry_time), DEAD (no retry left or not retryable), LEASE_EXPIRED (its relay stopped)',
    error           VARCHAR(1000) NULL COMMENT 'why it failed',
    instance        VARCHAR(128)  NULL COMMENT 'the relay or worker that made the attempt',
    next_retry_time DATETIME(3)   NULL COMMENT 'when the retry is due (UTC)',
    create_time     DATETIME(3)   NOT NULL COMMENT 'when (UTC)',
    PRIMARY KEY (id),
    KEY idx_event_no (event_no, id),
    KEY idx_create_time (create_time)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin COMMENT='failed attempts of outbox and message events (written only on failure)';

CREATE TABLE biz_admin_action (
    id            BIGINT UNSIGNED NOT NULL AUTO_INCREMENT COMMENT 'id',
    action        VARCHAR(32)   NOT NULL COMMENT 'RETRY, CANCEL, ...',
    target        VARCHAR(16)   NOT NULL COMMENT 'OUTBOX, MESSAGE, COMPENSATION or AGGREGATE',
    filter_text   VARCHAR(2000) NOT NULL COMMENT 'the event_no, aggregate or search text the action applied to',
    dry_run_count BIGINT        NULL COMMENT 'how many events the dry run before a bulk action matched',
    cap           INT           NULL COMMENT 'most events the action could change',
    changed_count INT           NOT NULL DEFAULT 0 COMMENT 'events changed',
    action_status VARCHAR(16)   NOT NULL COMMENT 'RUNNING, DONE or FAILED',
    actor         VARCHAR(128)  NOT NULL COMMENT 'who',
    reason        VARCHAR(500)  NOT NULL COMMENT 'why',
    error         VARCHAR(1000) NULL COMMENT 'why it failed',
    create_time   DATETIME(3)   NOT NULL COMMENT 'when it started (UTC)',
    finish_time   DATETIME(3)   NULL COMMENT 'when it ended (UTC)',
    PRIMARY KEY (id),
    KEY idx_actor (actor, id),
    KEY idx_create_time (create_time)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin COMMENT='operator actions: who, when, why, on what, how many';

ALTER TABLE biz_admin_log
    ADD COLUMN action_id BIGINT UNSIGNED NULL COMMENT 'the biz_admin_action row (NULL before schema version 8)',
    ADD COLUMN to_status TINYINT NULL COMMENT 'status after the action',
    ADD KEY idx_action (action_id, id);

CREATE TABLE biz_relay_instance (
    instance       VARCHAR(128)  NOT NULL COMMENT 'relay or worker id',
    role           VARCHAR(32)   NOT NULL COMMENT 'relay or worker',
    host           VARCHAR(255)  NULL COMMENT 'host it runs on',
    detail         VARCHAR(1000) NULL COMMENT 'what it serves',
    started_time   DATETIME(3)   NOT NULL COMMENT 'start (UTC)',
    last_seen_time DATETIME(3)   NOT NULL COMMENT 'last heartbeat (UTC, database clock)',
    stopped_time   DATETIME(3)   NULL COMMENT 'set when it stopped cleanly; NULL while running or after a crash',
    PRIMARY KEY (instance)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin COMMENT='relays and workers: who runs, since when, last heartbeat';

CREATE TABLE biz_relay_stats (
    id             BIGINT UNSIGNED NOT NULL AUTO_INCREMENT COMMENT 'id',
    instance       VARCHAR(128)  NOT NULL COMMENT 'relay or worker id',
    window_start   DATETIME(3)   NOT NULL COMMENT 'window start (UTC)',
    window_end     DATETIME(3)   NOT NULL COMMENT 'window end (UTC)',
    succeeded      BIGINT        NOT NULL DEFAULT 0 COMMENT 'events published or handled',
    failed         BIGINT        NOT NULL DEFAULT 0 COMMENT 'failed attempts with a retry left',
    dead           BIGINT        NOT NULL DEFAULT 0 COMMENT 'events that became dead',
    latency_sum_ms BIGINT        NOT NULL DEFAULT 0 COMMENT 'sum of create-to-success latency',
    latency_max_ms BIGINT        NOT NULL DEFAULT 0 COMMENT 'largest create-to-success latency',
    latency_hist   VARCHAR(255)  NULL COMMENT 'comma-separated counts per latency bucket, bounds fixed in code',
    PRIMARY KEY (id),
    KEY idx_window_start (window_start)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin COMMENT='per-window counts and latency of each relay or worker';
