-- Postbox schema, version 7, PostgreSQL: archived outbox events found by trace id.
-- Retention moves finished events to biz_outbox_event_archive; people still look them up by event_no,
-- aggregate (indexed since version 1) and trace id, which needs its own index there.
CREATE INDEX biz_outbox_event_archive_idx_trace_id ON biz_outbox_event_archive (trace_id);
