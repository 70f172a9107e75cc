-- Postbox schema, version 7, H2: archived outbox events found by trace id.
CREATE INDEX biz_outbox_event_archive_idx_trace_id ON biz_outbox_event_archive (trace_id);
