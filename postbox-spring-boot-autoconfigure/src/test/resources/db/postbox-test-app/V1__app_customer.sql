-- The application's own first migration in the Flyway tests: it must run on a schema without Postbox's tables
-- (Flyway refuses a non-empty schema without its history), in its own history beside Postbox's.
CREATE TABLE app_customer (
    customer_no VARCHAR(64)  NOT NULL PRIMARY KEY,
    name        VARCHAR(100) NOT NULL
);
