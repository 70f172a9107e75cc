-- Postbox schema, version 4, PostgreSQL: lease takeovers counted apart from publish failures.

-- Beyond seed 000, which counts an expired lease as a failed attempt (retry_count): a relay that dies
-- (kill -9, a crash) has not seen the broker refuse anything, so repeated crashes must not use up the
-- retries meant for publish failures and make an event DEAD whose publish never failed. lease_expiries
-- counts how often another relay took the event over after its relay's lease expired without an
-- outcome; past the relay's bound (maxLeaseExpiries) the event is DEAD: it may be what kills relays.
ALTER TABLE biz_outbox_event ADD COLUMN lease_expiries INT NOT NULL DEFAULT 0;
COMMENT ON COLUMN biz_outbox_event.lease_expiries IS 'takeovers after an expired lease (relay crashed); not publish failures';
ALTER TABLE biz_outbox_event_archive ADD COLUMN lease_expiries INT NOT NULL DEFAULT 0;
