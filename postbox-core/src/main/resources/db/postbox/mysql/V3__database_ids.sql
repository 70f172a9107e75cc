-- Postbox schema, version 3, MySQL 8 / MariaDB: every id is assigned by the database (AUTO_INCREMENT).
--
-- Why: the relay publishes the events of one aggregate in id order. Until version 2 the id was a snowflake
-- id drawn from the writing process's clock, so two application instances whose clocks differ by a few
-- milliseconds gave the later-committed event of an aggregate the lower id, and the relay published it
-- first. InnoDB hands out AUTO_INCREMENT values when a row is inserted, from one counter per table that
-- only goes up (in every innodb_autoinc_lock_mode): when the writers of an aggregate lock its business row
-- before writing the event, the later writer inserts only after the earlier one committed, so the later
-- commit always gets the larger id, whatever the clocks. Ids from one counter cannot clash between
-- processes, and never turn negative. (With innodb_autoinc_lock_mode = 2, MySQL 8's default, the ids of one
-- multi-row INSERT need not be consecutive; Postbox reads them back by event_no and never computes them.)
--
-- The *_archive twins stay plain BIGINT UNSIGNED: they copy the ids of the rows they archive.
--
-- Existing installations keep their snowflake ids; each counter starts above the largest id in the table
-- (InnoDB does that when AUTO_INCREMENT is added) and in its archive twin (set below), so new ids continue
-- above them and in order after them. Writers still running a Postbox before this version keep inserting
-- snowflake ids, which move the counter up to theirs: upgrade every writing process before relying on the
-- order of events written across the upgrade.
-- Adding AUTO_INCREMENT to a column copies the table (ALGORITHM=COPY), writes wait meanwhile: on a large
-- outbox, run it after a cleanup or in a quiet moment.

ALTER TABLE biz_outbox_event MODIFY id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT COMMENT 'id: assigned by the database at insert; publication order within an aggregate';
SET @postbox_next_id = 1 + GREATEST((SELECT COALESCE(MAX(id), 0) FROM biz_outbox_event),
    (SELECT COALESCE(MAX(id), 0) FROM biz_outbox_event_archive));
SET @postbox_sql = CONCAT('ALTER TABLE biz_outbox_event AUTO_INCREMENT = ', @postbox_next_id);
PREPARE postbox_stmt FROM @postbox_sql;
EXECUTE postbox_stmt;
DEALLOCATE PREPARE postbox_stmt;

ALTER TABLE biz_message_event MODIFY id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT COMMENT 'id: assigned by the database at insert';
SET @postbox_next_id = 1 + GREATEST((SELECT COALESCE(MAX(id), 0) FROM biz_message_event),
    (SELECT COALESCE(MAX(id), 0) FROM biz_message_event_archive));
SET @postbox_sql = CONCAT('ALTER TABLE biz_message_event AUTO_INCREMENT = ', @postbox_next_id);
PREPARE postbox_stmt FROM @postbox_sql;
EXECUTE postbox_stmt;
DEALLOCATE PREPARE postbox_stmt;

ALTER TABLE biz_consume_log MODIFY id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT COMMENT 'id: assigned by the database at insert';
SET @postbox_next_id = 1 + GREATEST((SELECT COALESCE(MAX(id), 0) FROM biz_consume_log),
    (SELECT COALESCE(MAX(id), 0) FROM biz_consume_log_archive));
SET @postbox_sql = CONCAT('ALTER TABLE biz_consume_log AUTO_INCREMENT = ', @postbox_next_id);
PREPARE postbox_stmt FROM @postbox_sql;
EXECUTE postbox_stmt;
DEALLOCATE PREPARE postbox_stmt;

ALTER TABLE biz_compensation_log MODIFY id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT COMMENT 'id: assigned by the database at insert';
SET @postbox_next_id = 1 + GREATEST((SELECT COALESCE(MAX(id), 0) FROM biz_compensation_log),
    (SELECT COALESCE(MAX(id), 0) FROM biz_compensation_log_archive));
SET @postbox_sql = CONCAT('ALTER TABLE biz_compensation_log AUTO_INCREMENT = ', @postbox_next_id);
PREPARE postbox_stmt FROM @postbox_sql;
EXECUTE postbox_stmt;
DEALLOCATE PREPARE postbox_stmt;

ALTER TABLE biz_admin_log MODIFY id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT COMMENT 'id: assigned by the database at insert';
