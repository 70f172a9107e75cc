-- Postbox schema, version 5, PostgreSQL: nothing to change.

-- Version 5 puts deleted into the order guard's index on MySQL and H2, whose guard probes one
-- (aggregate, status) range per blocking status. Schema versions are numbered alike for every dialect,
-- so PostgreSQL records version 5 too; its guard reads the partial index of version 2
-- (idx_aggregate_unfinished), which this version leaves as it is.
