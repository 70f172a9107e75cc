-- Postbox schema, version 9, PostgreSQL: the version marker.
-- biz_postbox_schema holds one row per applied version. The programmatic installer (Postbox#schema()) has
-- always kept it; from this version on the scripts write it themselves, so tables made from these files by
-- Flyway, Liquibase or by hand carry their version as well, and Postbox checks at start-up that the tables it
-- will use are there and current (a missing or old schema fails the start-up, naming what to run).
-- Every later script ends by recording its own version here.
CREATE TABLE IF NOT EXISTS biz_postbox_schema (
    version        INT          NOT NULL PRIMARY KEY,
    script         VARCHAR(200) NOT NULL,
    installed_time VARCHAR(40)  NOT NULL
);
INSERT INTO biz_postbox_schema (version, script, installed_time) VALUES (9, 'V9__schema_version.sql', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'));
