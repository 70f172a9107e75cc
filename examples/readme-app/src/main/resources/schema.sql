CREATE TABLE IF NOT EXISTS t_order (order_no VARCHAR(64) PRIMARY KEY, sku VARCHAR(64) NOT NULL, quantity INT NOT NULL);
CREATE TABLE IF NOT EXISTS stock (sku VARCHAR(64) PRIMARY KEY, reserved INT NOT NULL);
CREATE TABLE IF NOT EXISTS handled (consumer VARCHAR(64) NOT NULL, order_no VARCHAR(64) NOT NULL,
                                    event_no VARCHAR(128) NOT NULL, PRIMARY KEY (consumer, event_no));
