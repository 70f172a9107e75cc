CREATE TABLE IF NOT EXISTS smoke_order (
    order_no VARCHAR(64) PRIMARY KEY,
    status   VARCHAR(16) NOT NULL
);
