-- Postbox schema, version 5, MySQL 8 / MariaDB: the order guard answered from its index alone.

-- The guard asks, per blocking status, for the aggregate's lowest id in that status among live rows
-- (deleted = 0). With idx_aggregate_status (aggregate_type, aggregate_id, publish_status, id) from
-- version 2, each probe found its index entry and then read the row to check deleted; InnoDB's row
-- prefetch for a cursor it saw fetch several times then read eight rows ahead, so a probe of a busy
-- aggregate cost ~29 pages instead of 2 (MariaDB 10.11, 100,000 pending rows never analyzed, the
-- pending claim's select with 250 candidates: 7,273 pages for the pending-status probes, 9,546 for the
-- whole select; with deleted in the index 518 and 2,788). With deleted before id the probe is one index
-- entry, and soft-deleted rows are not even walked.
-- The index keeps its name, so a relay of version 4 still finds the index it names in its hint.
-- Dropping and adding a secondary index is done in place: writes go on meanwhile.
ALTER TABLE biz_outbox_event DROP KEY idx_aggregate_status,
    ADD KEY idx_aggregate_status (aggregate_type, aggregate_id, publish_status, deleted, id),
    ALGORITHM=INPLACE, LOCK=NONE;
