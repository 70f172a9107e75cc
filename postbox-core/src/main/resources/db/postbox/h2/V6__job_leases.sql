-- Postbox schema, version 6, H2: named leases, so that a job runs in one process at a time.

-- One row per job: the owner that holds it and until when, by the database's clock. A free lease keeps
-- its row with owner and lease_until NULL; every take, renewal and release bumps version.
CREATE TABLE biz_job_lease (
    job_name      VARCHAR(128) NOT NULL,
    owner         VARCHAR(128),
    lease_until   TIMESTAMP(3) WITH TIME ZONE,
    acquired_time TIMESTAMP(3) WITH TIME ZONE,
    renewed_time  TIMESTAMP(3) WITH TIME ZONE,
    version       BIGINT DEFAULT 0 NOT NULL,
    update_time   TIMESTAMP(3) WITH TIME ZONE DEFAULT CURRENT_TIMESTAMP NOT NULL,
    CONSTRAINT biz_job_lease_pk PRIMARY KEY (job_name)
);
