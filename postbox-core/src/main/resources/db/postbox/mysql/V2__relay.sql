-- Postbox schema, version 2, MySQL 8 / MariaDB: what the relay and the admin operations need.

-- The relay publishes an event only when no earlier event of its aggregate is unfinished (status 0, 1,
-- 3 or 5). Without partial indexes, putting the status before the id keeps that check to four short
-- range probes that never walk an aggregate's published history.
ALTER TABLE biz_outbox_event ADD KEY idx_aggregate_status (aggregate_type, aggregate_id, publish_status, id);

-- Who moved an event on by hand (retry, cancel), when and why.
CREATE TABLE biz_admin_log (
    id          BIGINT UNSIGNED NOT NULL COMMENT 'id',
    table_name  VARCHAR(64)   NOT NULL COMMENT 'outbox or message table',
    event_no    VARCHAR(64)   NOT NULL COMMENT 'event acted on',
    action      VARCHAR(16)   NOT NULL COMMENT 'RETRY or CANCEL',
    from_status TINYINT       NOT NULL COMMENT 'status before the action',
    actor       VARCHAR(128)  NOT NULL COMMENT 'who',
    reason      VARCHAR(500)  NOT NULL COMMENT 'why',
    create_time DATETIME(3)   NOT NULL COMMENT 'when (UTC)',
    PRIMARY KEY (id),
    KEY idx_event_no (event_no, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin COMMENT='manual retry/cancel log';
