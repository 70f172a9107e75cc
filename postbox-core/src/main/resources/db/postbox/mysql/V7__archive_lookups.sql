-- Postbox schema, version 7, MySQL 8 / MariaDB: archived outbox events found by trace id.
-- Retention moves finished events to biz_outbox_event_archive; people still look them up by event_no,
-- aggregate (indexed since version 1) and trace id, which needs its own index there. Added in place:
-- archiving goes on meanwhile.
ALTER TABLE biz_outbox_event_archive ADD KEY idx_trace_id (trace_id), ALGORITHM=INPLACE, LOCK=NONE;
