-- Postbox schema, version 6, PostgreSQL: named leases, so that a job runs in one process at a time.

-- One row per job (a retention sweep, an archiver, a reconciliation): the owner that holds it and until
-- when, by the database's clock, so that instances whose clocks disagree can never both believe they
-- hold it. A free lease keeps its row with owner and lease_until NULL; every take, renewal and release
-- bumps version.
CREATE TABLE biz_job_lease (
    job_name      VARCHAR(128)   NOT NULL,
    owner         VARCHAR(128)   NULL,
    lease_until   TIMESTAMPTZ(3) NULL,
    acquired_time TIMESTAMPTZ(3) NULL,
    renewed_time  TIMESTAMPTZ(3) NULL,
    version       BIGINT         NOT NULL DEFAULT 0,
    update_time   TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    CONSTRAINT biz_job_lease_pk PRIMARY KEY (job_name)
);
COMMENT ON TABLE biz_job_lease IS 'Named leases: which process runs a job, until when (database clock)';
COMMENT ON COLUMN biz_job_lease.owner IS 'holder of the lease; NULL when free';
COMMENT ON COLUMN biz_job_lease.lease_until IS 'the lease ends at this database time unless renewed; NULL when free';
COMMENT ON COLUMN biz_job_lease.acquired_time IS 'when the current (or last) owner took it';
COMMENT ON COLUMN biz_job_lease.renewed_time IS 'last take or renewal';
COMMENT ON COLUMN biz_job_lease.version IS 'bumped by every take, renewal and release';
