-- Postbox schema, version 5, H2: the order guard answered from its index alone, as on MySQL.

-- The guard's probes look for earlier live (deleted = 0) events of an aggregate in one blocking
-- status; with deleted in the index before id they read index entries only and skip deleted rows.
-- The index keeps its name.
DROP INDEX biz_outbox_event_idx_aggregate_status;
CREATE INDEX biz_outbox_event_idx_aggregate_status ON biz_outbox_event (aggregate_type, aggregate_id, publish_status, deleted, id);
