package dev.postbox.retention;

import dev.postbox.jdbc.Dialect;
import dev.postbox.jdbc.TableNames;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The partitioned outbox on PostgreSQL 15: declarative RANGE partitioning on {@code partition_time}
 * ({@code TIMESTAMPTZ(3) DEFAULT now()}), ids from an explicit sequence (a partitioned table has no identity
 * column), the key table filled by a BEFORE INSERT row trigger that returns NULL for an event_no it already
 * holds, so the writer's {@code INSERT ... ON CONFLICT DO NOTHING RETURNING} returns no row for it and
 * reports a duplicate, as on the plain table.
 *
 * <p>The mover's privilege is the transaction-local setting {@code postbox.partition_move}. PostgreSQL runs
 * an UPDATE that changes the partition key as a delete from the old partition and an insert into the new
 * one, firing the new partition's BEFORE INSERT triggers: without the setting the key trigger would find the
 * row's own event_no, return NULL, and the row would be gone (UPDATE 0, no error). With it the trigger lets
 * the row through and moves its key row along; a BEFORE UPDATE trigger refuses every other change of
 * partition_time (and of event_no), so no statement outside the mover can lose a row that way.
 *
 * <p>New partitions are created standalone and attached ({@code ATTACH PARTITION} takes a lock that does not
 * conflict with reads and writes of rows, unlike {@code CREATE TABLE ... PARTITION OF}); partitions leave by
 * {@code DETACH PARTITION ... CONCURRENTLY}, which does not block writers either, then are dropped.
 */
final class PostgresPartitions implements PartitionOps {

    /** The transaction-local setting that lets the mover change partition_time. */
    static final String MOVE_SETTING = "postbox.partition_move";

    private static final DateTimeFormatter BOUND = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS'+00'")
            .withZone(ZoneOffset.UTC);
    private static final String UNPUBLISHED_STATUSES = "0, 1, 3, 4, 5";

    private final Dialect dialect;

    PostgresPartitions(Dialect dialect) {
        this.dialect = dialect;
    }

    @Override
    public boolean partitioned(Connection c, String table) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT relkind FROM pg_class WHERE oid = to_regclass(?)")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && "p".equals(rs.getString(1));
            }
        }
    }

    @Override
    public void convert(Connection c, TableNames tables, List<Range> ranges, Duration generation) throws SQLException {
        String t = tables.outbox();
        boolean autoCommit = c.getAutoCommit();
        c.setAutoCommit(false);
        try (Statement st = c.createStatement()) {
            st.execute("LOCK TABLE " + t + " IN ACCESS EXCLUSIVE MODE");
            long rows = PartitionSql.longOf(st, "SELECT count(*) FROM (SELECT 1 FROM " + t + " LIMIT 1000000) r");
            if (rows > 0) {
                throw new SQLException(t + " holds " + (rows >= 1_000_000 ? "at least 1000000" : rows)
                        + " rows: only an empty outbox is converted to the partitioned variant (drain it, archive"
                        + " or delete its rows, then convert)", "55000");
            }
            long nextId = 1 + PartitionSql.longOf(st, "SELECT GREATEST((SELECT COALESCE(MAX(id), 0) FROM " + t + "),"
                    + " (SELECT COALESCE(MAX(id), 0) FROM " + tables.outboxArchive() + "),"
                    + " COALESCE((SELECT last_value FROM pg_sequences WHERE schemaname || '.' || sequencename"
                    + " = pg_get_serial_sequence('" + t + "', 'id')), 0))");
            String comment = stringOf(st, "SELECT obj_description(to_regclass('" + t + "'), 'pg_class')");
            List<String> indexes = new ArrayList<>();
            try (ResultSet rs = st.executeQuery("SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i"
                    + " WHERE i.indrelid = to_regclass('" + t + "') AND NOT EXISTS"
                    + " (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid) ORDER BY i.indexrelid")) {
                while (rs.next()) {
                    indexes.add(rs.getString(1));
                }
            }
            st.execute("CREATE TABLE " + t + "_partitioned (LIKE " + t + " INCLUDING DEFAULTS INCLUDING COMMENTS,"
                    + " partition_time TIMESTAMPTZ(3) NOT NULL DEFAULT now()) PARTITION BY RANGE (partition_time)");
            st.execute("DROP TABLE " + t);
            st.execute("ALTER TABLE " + t + "_partitioned RENAME TO " + t);
            st.execute("CREATE SEQUENCE " + t + "_id_seq CACHE 1 START " + nextId + " OWNED BY " + t + ".id");
            st.execute("ALTER TABLE " + t + " ALTER COLUMN id SET DEFAULT nextval('" + t + "_id_seq')");
            st.execute("ALTER TABLE " + t + " ADD CONSTRAINT " + t + "_pk PRIMARY KEY (id, partition_time)");
            for (String index : indexes) {
                st.execute(index);
            }
            st.execute("CREATE INDEX " + t + "_idx_event_no ON " + t + " (event_no)");
            st.execute("COMMENT ON TABLE " + t + " IS " + literal((comment == null ? "" : comment + "; ")
                    + "partitioned by partition_time (Postbox retention)"));
            st.execute("COMMENT ON COLUMN " + t + ".partition_time IS 'when the row was inserted (database clock):"
                    + " the range key; changed only by retention, which moves unfinished rows out of a partition before"
                    + " dropping it'");
            String keys = PartitionOps.keyTable(t);
            st.execute("CREATE TABLE " + keys + " (event_no VARCHAR(64) NOT NULL, bucket TIMESTAMPTZ(3) NOT NULL,"
                    + " CONSTRAINT " + keys + "_pk PRIMARY KEY (event_no, bucket)) PARTITION BY RANGE (bucket)");
            st.execute("COMMENT ON TABLE " + keys + " IS " + literal("the unique key of " + t + " across its partitions:"
                    + " each row's event_no under the start of its generation (" + generation + " wide) and of the one"
                    + " before; a generation is dropped when no row of " + t + " can have a key in it"));
            st.execute("COMMENT ON COLUMN " + keys + ".bucket IS 'the start of a generation: the row''s own, or the one"
                    + " before it'");
            st.execute(keyTrigger(t, ranges.get(0).from(), generation));
            st.execute("CREATE TRIGGER " + t + "_key BEFORE INSERT ON " + t + " FOR EACH ROW EXECUTE FUNCTION "
                    + t + "_key_insert()");
            st.execute(guardTrigger(t));
            st.execute("CREATE TRIGGER " + t + "_partition_guard BEFORE UPDATE OF partition_time, event_no ON " + t
                    + " FOR EACH ROW EXECUTE FUNCTION " + t + "_partition_guard()");
            st.execute("ALTER TABLE " + tables.outboxArchive() + " ADD COLUMN IF NOT EXISTS partition_time TIMESTAMPTZ(3)");
            for (Range r : ranges) {
                attach(st, t, r);
            }
            for (Range r : PartitionOps.keyRanges(t, ranges, generation)) {
                attach(st, keys, r);
            }
            c.commit();
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(autoCommit);
        }
    }

    /**
     * The key trigger ({@link PartitionOps}): a row of generation {@code b} records its event_no under {@code b - g},
     * then {@code b}; an event_no either of them holds, committed or not, skips the row (RETURN NULL: the writer's
     * {@code ON CONFLICT DO NOTHING RETURNING} returns nothing for it). A skipped write leaves at most a key row
     * under {@code b - g} behind, older than the one it met, so it never keeps an event_no known longer. The mover's
     * rows pass, their key rows follow them to their new generation.
     */
    private static String keyTrigger(String t, Instant origin, Duration generation) {
        return """
                CREATE FUNCTION %1$s_key_insert() RETURNS trigger LANGUAGE plpgsql AS $f$
                DECLARE
                    g CONSTANT interval := interval '%4$d seconds';
                    b timestamptz := timestamptz '%3$s'
                        + make_interval(secs => floor(extract(epoch FROM NEW.partition_time - timestamptz '%3$s') / %4$d) * %4$d);
                BEGIN
                    IF current_setting('%2$s', true) = 'on' THEN
                        DELETE FROM %1$s_key WHERE event_no = NEW.event_no AND bucket <> b AND bucket <> b - g;
                        INSERT INTO %1$s_key (event_no, bucket) VALUES (NEW.event_no, b - g), (NEW.event_no, b)
                            ON CONFLICT DO NOTHING;
                        RETURN NEW;
                    END IF;
                    INSERT INTO %1$s_key (event_no, bucket) VALUES (NEW.event_no, b - g) ON CONFLICT DO NOTHING;
                    IF NOT FOUND THEN
                        RETURN NULL;
                    END IF;
                    INSERT INTO %1$s_key (event_no, bucket) VALUES (NEW.event_no, b) ON CONFLICT DO NOTHING;
                    IF NOT FOUND THEN
                        RETURN NULL;
                    END IF;
                    RETURN NEW;
                END
                $f$""".formatted(t, MOVE_SETTING, BOUND.format(origin), generation.toSeconds());
    }

    /** The guard: partition_time and event_no change only through the mover. */
    private static String guardTrigger(String t) {
        return """
                CREATE FUNCTION %1$s_partition_guard() RETURNS trigger LANGUAGE plpgsql AS $f$
                BEGIN
                    IF NEW.event_no IS DISTINCT FROM OLD.event_no THEN
                        RAISE EXCEPTION 'event_no of %1$s row %% cannot change (it is the idempotency key)', OLD.id
                            USING ERRCODE = '55000';
                    END IF;
                    IF NEW.partition_time IS DISTINCT FROM OLD.partition_time
                            AND current_setting('%2$s', true) IS DISTINCT FROM 'on' THEN
                        RAISE EXCEPTION 'partition_time of %1$s row %% changes only through Postbox retention, which moves'
                            ' a row between partitions with its idempotency key', OLD.id USING ERRCODE = '55000';
                    END IF;
                    RETURN NEW;
                END
                $f$""".formatted(t, MOVE_SETTING);
    }

    @Override
    public List<Range> partitions(Connection c, String table) throws SQLException {
        List<Range> out = new ArrayList<>();
        String bounds = "regexp_match(pg_get_expr(p.relpartbound, p.oid), 'FROM \\(''([^'']+)''\\) TO \\(''([^'']+)''\\)')";
        try (PreparedStatement ps = c.prepareStatement("SELECT p.relname, (b.m[1])::timestamptz AS from_time,"
                + " (b.m[2])::timestamptz AS to_time FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhrelid"
                + " CROSS JOIN LATERAL (SELECT " + bounds + " AS m) b"
                + " WHERE i.inhparent = to_regclass(?) AND NOT i.inhdetachpending ORDER BY 2")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Instant from = dialect.readTime(rs, "from_time");
                    Instant to = dialect.readTime(rs, "to_time");
                    if (from == null || to == null) {
                        throw new SQLException("partition " + rs.getString(1) + " of " + table
                                + " is not a bounded time range (a DEFAULT or MINVALUE/MAXVALUE partition): Postbox"
                                + " retention manages ranges it created only");
                    }
                    out.add(new Range(rs.getString(1), from, to));
                }
            }
        }
        return out;
    }

    @Override
    public void create(Connection c, String table, Range range, Duration lockTimeout) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("SET LOCAL lock_timeout = " + Math.max(1, lockTimeout.toMillis()));
            attach(st, table, range);
        }
    }

    private static void attach(Statement st, String table, Range r) throws SQLException {
        st.execute("CREATE TABLE " + r.name() + " (LIKE " + table + " INCLUDING DEFAULTS)");
        st.execute("ALTER TABLE " + table + " ATTACH PARTITION " + r.name() + " FOR VALUES FROM ("
                + literal(BOUND.format(r.from())) + ") TO (" + literal(BOUND.format(r.to())) + ")");
    }

    @Override
    public long[] size(Connection c, String table, Range range) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT GREATEST(c.reltuples::bigint, COALESCE(s.n_live_tup, 0)),"
                + " pg_total_relation_size(c.oid) FROM pg_class c LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid"
                + " WHERE c.oid = to_regclass(?)")) {
            ps.setString(1, range.name());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? new long[] {rs.getLong(1), rs.getLong(2)} : new long[] {-1, -1};
            }
        }
    }

    @Override
    public boolean empty(Connection c, String table, Range range) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT 1 FROM " + range.name() + " LIMIT 1")) {
            return !rs.next();
        }
    }

    @Override
    public List<Row> unpublished(Connection c, String table, Range range, int limit) throws SQLException {
        return PartitionSql.rows(c, dialect, "SELECT id, publish_status, update_time, aggregate_type, aggregate_id FROM " + range.name()
                + " WHERE publish_status IN (" + UNPUBLISHED_STATUSES + ") LIMIT ? FOR UPDATE NOWAIT", limit);
    }

    @Override
    public List<Row> unpublishedDetached(Connection c, String detached, int limit) throws SQLException {
        return PartitionSql.rows(c, dialect, "SELECT id, publish_status, update_time, aggregate_type, aggregate_id FROM " + detached
                + " WHERE publish_status IN (" + UNPUBLISHED_STATUSES + ") LIMIT ?", limit);
    }

    @Override
    public int move(Connection c, String table, Range range, List<Long> ids) throws SQLException {
        if (ids.isEmpty()) {
            return 0;
        }
        setMove(c, true);
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + table + " SET partition_time = now()"
                + " WHERE id = ANY (?) AND partition_time >= ? AND partition_time < ?")) {
            ps.setArray(1, ids(c, ids));
            dialect.bindTime(ps, 2, range.from());
            dialect.bindTime(ps, 3, range.to());
            return ps.executeUpdate();
        } finally {
            setMove(c, false);
        }
    }

    @Override
    public String detach(Connection c, String table, Range range, Duration lockTimeout) throws SQLException {
        boolean autoCommit = c.getAutoCommit();
        c.setAutoCommit(true);
        try (Statement st = c.createStatement()) {
            st.execute("SET lock_timeout = " + Math.max(1, lockTimeout.toMillis()));
            try {
                st.execute("ALTER TABLE " + table + " DETACH PARTITION " + range.name() + " CONCURRENTLY");
            } finally {
                st.execute("RESET lock_timeout");
            }
        } finally {
            c.setAutoCommit(autoCommit);
        }
        return range.name();
    }

    @Override
    public int restore(Connection c, String table, String detached, List<Long> ids) throws SQLException {
        if (ids.isEmpty()) {
            return 0;
        }
        String columns = String.join(", ", PartitionSql.columnsBut(c, table, "partition_time"));
        setMove(c, true);
        int restored;
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " (" + columns + ") SELECT " + columns
                + " FROM " + detached + " WHERE id = ANY (?)")) {
            ps.setArray(1, ids(c, ids));
            restored = ps.executeUpdate();
        } finally {
            setMove(c, false);
        }
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + detached + " WHERE id = ANY (?)")) {
            ps.setArray(1, ids(c, ids));
            int deleted = ps.executeUpdate();
            if (deleted != restored) {
                throw new SQLException("restored " + restored + " rows of " + detached + " into " + table + " but deleted "
                        + deleted);
            }
        }
        return restored;
    }

    @Override
    public List<String> detachedIndexes(Connection c, String detached) throws SQLException {
        List<String> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT i.indexrelid::regclass::text FROM pg_index i"
                + " WHERE i.indrelid = to_regclass(?) AND NOT i.indisprimary AND NOT EXISTS"
                + " (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid) ORDER BY 1")) {
            ps.setString(1, detached);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }

    @Override
    public void dropIndex(Connection c, String index) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("DROP INDEX " + index);
        }
    }

    @Override
    public void dropDetached(Connection c, String detached) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("DROP TABLE " + detached);
        }
    }

    @Override
    public String pendingDetach(Connection c, String table, Duration finalizeLockTimeout) throws SQLException {
        String pending = null;
        try (PreparedStatement ps = c.prepareStatement("SELECT p.relname FROM pg_inherits i JOIN pg_class p ON p.oid ="
                + " i.inhrelid WHERE i.inhparent = to_regclass(?) AND i.inhdetachpending")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    pending = rs.getString(1);
                }
            }
        }
        if (pending != null) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(true);
            try (Statement st = c.createStatement()) {
                st.execute("SET lock_timeout = " + Math.max(1, finalizeLockTimeout.toMillis()));
                try {
                    st.execute("ALTER TABLE " + table + " DETACH PARTITION " + pending + " FINALIZE");
                } finally {
                    st.execute("RESET lock_timeout");
                }
            } finally {
                c.setAutoCommit(autoCommit);
            }
            return pending;
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT c.relname FROM pg_class c WHERE c.relkind = 'r'"
                + " AND NOT c.relispartition AND c.relnamespace = (SELECT relnamespace FROM pg_class WHERE oid ="
                + " to_regclass(?)) AND c.relname ~ ('^' || ? || '_p[0-9]{8}([0-9]{2})?$') ORDER BY c.relname LIMIT 1")) {
            ps.setString(1, table);
            ps.setString(2, table.toLowerCase(Locale.ROOT));
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    private static void setMove(Connection c, boolean on) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT set_config(?, ?, true)")) {
            ps.setString(1, MOVE_SETTING);
            ps.setString(2, on ? "on" : "off");
            ps.execute();
        }
    }

    private static Array ids(Connection c, List<Long> ids) throws SQLException {
        return c.createArrayOf("bigint", ids.toArray());
    }

    private static String stringOf(Statement st, String sql) throws SQLException {
        try (ResultSet rs = st.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    private static String literal(String text) {
        return "'" + text.replace("'", "''") + "'";
    }
}
