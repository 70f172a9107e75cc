--liquibase formatted sql

--changeset app:1
CREATE TABLE app_customer (id INT PRIMARY KEY, name VARCHAR(64));
