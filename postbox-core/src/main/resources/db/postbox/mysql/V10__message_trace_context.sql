-- Postbox schema, version 10, MySQL 8 / MariaDB: the trace context of a message event's write.
-- biz_message_event keeps no headers (seed 000's model), only trace_id. The worker's process span needs the
-- context of the write's create span as its parent: trace_context holds the headers the tracer injected at the
-- write (a JSON object such as {"traceparent":"00-...-...-01","tracestate":"..."}), NULL when the write was not traced.
-- A nullable column added last: MySQL 8 and MariaDB 10.3+ add it in place, without copying the table.
ALTER TABLE biz_message_event ADD COLUMN trace_context VARCHAR(2000) DEFAULT NULL COMMENT 'headers of the write''s trace context (JSON object), NULL when untraced';
ALTER TABLE biz_message_event_archive ADD COLUMN trace_context VARCHAR(2000) DEFAULT NULL;
INSERT INTO biz_postbox_schema (version, script, installed_time) VALUES (10, 'V10__message_trace_context.sql', DATE_FORMAT(UTC_TIMESTAMP(3), '%Y-%m-%dT%H:%i:%s.%fZ'));
