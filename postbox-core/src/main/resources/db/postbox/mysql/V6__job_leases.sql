-- Postbox schema, version 6, MySQL 8 / MariaDB: named leases, so that a job runs in one process at a time.

-- One row per job (a retention sweep, an archiver, a reconciliation): the owner that holds it and until
-- when, by the database's clock (UTC_TIMESTAMP), so that instances whose clocks disagree can never both
-- believe they hold it. A free lease keeps its row with owner and lease_until NULL; every take, renewal
-- and release bumps version.
CREATE TABLE biz_job_lease (
    job_name      VARCHAR(128) NOT NULL COMMENT 'the job',
    owner         VARCHAR(128) NULL COMMENT 'holder of the lease; NULL when free',
    lease_until   DATETIME(3)  NULL COMMENT 'the lease ends at this database time (UTC) unless renewed; NULL when free',
    acquired_time DATETIME(3)  NULL COMMENT 'when the current (or last) owner took it (UTC)',
    renewed_time  DATETIME(3)  NULL COMMENT 'last take or renewal (UTC)',
    version       BIGINT       NOT NULL DEFAULT 0 COMMENT 'bumped by every take, renewal and release',
    update_time   DATETIME(3)  NOT NULL COMMENT 'last change (UTC)',
    PRIMARY KEY (job_name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin COMMENT='named leases: which process runs a job, until when';
