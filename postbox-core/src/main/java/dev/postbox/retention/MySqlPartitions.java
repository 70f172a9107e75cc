package dev.postbox.retention;

import dev.postbox.jdbc.Dialect;
import dev.postbox.jdbc.TableNames;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The partitioned outbox on MariaDB 10.7+ (InnoDB): {@code PARTITION BY RANGE COLUMNS (partition_time)}, a
 * {@code DATETIME(3) NOT NULL DEFAULT UTC_TIMESTAMP(3)} column; the primary key {@code (id, partition_time)}
 * keeps the id AUTO_INCREMENT. A partitioned InnoDB table allows no unique key without the partition column, so
 * {@code uk_event_no} moves to the key table, filled by a BEFORE INSERT trigger: a known event_no fails the
 * outbox INSERT with error 1062 on {@code uk_event_no}, exactly as on the plain outbox (the statement and the
 * trigger's insert roll back together), so the writer's duplicate detection is unchanged.
 *
 * <p>A RANGE partition has only an upper bound ({@code VALUES LESS THAN}); a partition covers
 * {@code [previous bound, its bound)}, and the first one's lower bound is the start its name carries
 * ({@code _pYYYYMMDD[HH]}). MariaDB moves a row whose partition_time changes as a delete and a write inside
 * the partition handler, without firing insert triggers: the BEFORE UPDATE trigger refuses the change unless
 * the session variable {@code @postbox_partition_move} is 1 (the mover's privilege, reset after each move), and
 * then moves the key row along.
 *
 * <p>Partitions are added with {@code ADD PARTITION} and leave with {@code CONVERT PARTITION ... TO TABLE}
 * (MariaDB 10.7), which turns the partition into a standalone table without copying, then dropped. Both take
 * the table's metadata lock for a moment; while one waits for it (for a transaction that has read the outbox and
 * is still open) new statements on the outbox queue behind it, so the wait is bounded by the lock timeout (whole
 * seconds, at least 1) and a run that times out leaves the partition for the next run. Not transactional: the
 * conversion builds the new table beside the old one, swaps both names in one {@code RENAME TABLE} and can be
 * run again after a failure.
 */
final class MySqlPartitions implements PartitionOps {

    /** The session variable that lets the mover change partition_time (set to 1 only around a move). */
    static final String MOVE_VARIABLE = "@postbox_partition_move";

    private static final DateTimeFormatter BOUND = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS")
            .withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter READ_BOUND = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss[.SSS]");
    private static final Pattern START = Pattern.compile("_p(\\d{8})(\\d{2})?$");
    private static final String UNPUBLISHED_STATUSES = "0, 1, 3, 4, 5";
    private static final String ROW_COLUMNS = "id, publish_status, update_time, aggregate_type, aggregate_id";

    private final Dialect dialect;

    MySqlPartitions(Dialect dialect) {
        this.dialect = dialect;
    }

    @Override
    public boolean partitioned(Connection c, String table) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM information_schema.PARTITIONS"
                + " WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND PARTITION_NAME IS NOT NULL")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getLong(1) > 0;
            }
        }
    }

    @Override
    public void convert(Connection c, TableNames tables, List<Range> ranges, Duration generation) throws SQLException {
        String t = tables.outbox();
        String building = t + "_partitioned";
        String old = t + "_unpartitioned";
        boolean autoCommit = c.getAutoCommit();
        c.setAutoCommit(true);
        try (Statement st = c.createStatement()) {
            if (exists(c, old)) {
                if (PartitionSql.longOf(st, "SELECT COUNT(*) FROM " + old) > 0) {
                    throw new SQLException(old + " holds rows an interrupted conversion of " + t + " left: move them into "
                            + t + " and drop " + old + ", then convert again", "55000");
                }
                st.execute("DROP TABLE " + old);
            }
            long rows = PartitionSql.longOf(st, "SELECT COUNT(*) FROM (SELECT 1 FROM " + t + " LIMIT 1000000) r");
            if (rows > 0) {
                throw new SQLException(t + " holds " + (rows >= 1_000_000 ? "at least 1000000" : rows)
                        + " rows: only an empty outbox is converted to the partitioned variant (drain it, archive"
                        + " or delete its rows, then convert)", "55000");
            }
            long nextId = 1 + Math.max(PartitionSql.longOf(st, "SELECT GREATEST((SELECT COALESCE(MAX(id), 0) FROM " + t + "),"
                    + " (SELECT COALESCE(MAX(id), 0) FROM " + tables.outboxArchive() + "))"), autoIncrement(c, t) - 1);
            String collation = stringOf(c, "SELECT COLLATION_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA ="
                    + " DATABASE() AND TABLE_NAME = ? AND COLUMN_NAME = 'event_no'", t);
            String comment = stringOf(c, "SELECT TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA ="
                    + " DATABASE() AND TABLE_NAME = ?", t);

            // the key table: a conversion that failed half-way may have left one (the outbox was empty then)
            String keys = PartitionOps.keyTable(t);
            st.execute("DROP TABLE IF EXISTS " + keys);
            StringBuilder keyPartitions = new StringBuilder();
            for (Range r : PartitionOps.keyRanges(t, ranges, generation)) {
                keyPartitions.append(keyPartitions.isEmpty() ? "" : ", ").append(partitionClause(r));
            }
            st.execute("CREATE TABLE " + keys + " (event_no VARCHAR(64) NOT NULL COLLATE " + collation + ","
                    + " bucket DATETIME(3) NOT NULL COMMENT 'the start of a generation: the row''s own, or the one before it',"
                    + " UNIQUE KEY uk_event_no (event_no, bucket)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4"
                    + " COLLATE=" + collation + " COMMENT=" + literal("the unique key of " + t + " across its partitions:"
                    + " each row's event_no under the start of its generation (" + generation + " wide) and of the one"
                    + " before; a generation is dropped when no row of " + t + " can have a key in it")
                    + " PARTITION BY RANGE COLUMNS (bucket) (" + keyPartitions + ")");

            st.execute("DROP TABLE IF EXISTS " + building);
            st.execute("CREATE TABLE " + building + " LIKE " + t);
            StringBuilder partitions = new StringBuilder();
            for (Range r : ranges) {
                partitions.append(partitions.isEmpty() ? "" : ", ").append(partitionClause(r));
            }
            st.execute("ALTER TABLE " + building + " DROP KEY uk_event_no," + idSuffixed(c, building)
                    + " ADD COLUMN partition_time DATETIME(3) NOT NULL DEFAULT UTC_TIMESTAMP(3) COMMENT "
                    + literal("when the row was inserted (database clock, UTC): the range key; changed only by retention,"
                    + " which moves unfinished rows out of a partition before dropping it")
                    + ", DROP PRIMARY KEY, ADD PRIMARY KEY (id, partition_time), ADD KEY idx_event_no (event_no),"
                    + " AUTO_INCREMENT = " + nextId + ", COMMENT = " + literal(((comment == null || comment.isEmpty()) ? ""
                    : comment + "; ") + "partitioned by partition_time (Postbox retention)")
                    + " PARTITION BY RANGE COLUMNS (partition_time) (" + partitions + ")");
            Instant origin = ranges.get(0).from();
            st.execute(keyTrigger(t, building, origin, generation));
            st.execute(guardTrigger(t, building, origin, generation));

            st.execute("RENAME TABLE " + t + " TO " + old + ", " + building + " TO " + t);
            // a write that reached the old table between the check and the swap is carried over, never dropped
            String columns = String.join(", ", PartitionSql.columnsBut(c, old, null));
            long left = PartitionSql.longOf(st, "SELECT COUNT(*) FROM " + old);
            if (left > 0) {
                int copied = st.executeUpdate("INSERT INTO " + t + " (" + columns + ") SELECT " + columns + " FROM " + old);
                if (copied != left) {
                    throw new SQLException("copied " + copied + " of the " + left + " rows written to " + old
                            + " during the conversion; " + old + " is kept");
                }
            }
            st.execute("DROP TABLE " + old);
            st.execute("ALTER TABLE " + tables.outboxArchive() + " ADD COLUMN IF NOT EXISTS partition_time DATETIME(3)"
                    + " DEFAULT NULL COMMENT 'the partition_time it had in the partitioned outbox'");
        } finally {
            c.setAutoCommit(autoCommit);
        }
    }

    /**
     * The clauses that write out the id InnoDB appends to every secondary index of a plain table: the partition
     * handler does not know that suffix, so without it {@code ORDER BY status, id} through {@code idx_status_id}
     * (the relay's claim) becomes a sort of every pending row instead of an ordered read of the first ones.
     */
    private static String idSuffixed(Connection c, String table) throws SQLException {
        java.util.Map<String, List<String>> indexes = new java.util.LinkedHashMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT INDEX_NAME, COLUMN_NAME, SUB_PART FROM"
                + " information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND NON_UNIQUE = 1"
                + " AND INDEX_TYPE = 'BTREE' ORDER BY INDEX_NAME, SEQ_IN_INDEX")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String column = rs.getString(2) + (rs.getObject(3) == null ? "" : "(" + rs.getLong(3) + ")");
                    indexes.computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(column);
                }
            }
        }
        StringBuilder out = new StringBuilder();
        indexes.forEach((name, columns) -> {
            if (!columns.contains("id")) {
                out.append(" DROP KEY ").append(name).append(", ADD KEY ").append(name).append(" (")
                        .append(String.join(", ", columns)).append(", id),");
            }
        });
        return out.toString();
    }

    /**
     * The key trigger ({@link PartitionOps}): a row of generation {@code b} records its event_no under
     * {@code b - G} and {@code b} in one statement; an event_no either generation holds, committed or not, fails
     * the insert with 1062 on uk_event_no, and the statement leaves no key row behind. The mover's rows pass; their
     * key rows follow them to their new generation.
     */
    private static String keyTrigger(String t, String on, Instant origin, Duration generation) {
        return """
                CREATE TRIGGER %1$s_key_insert BEFORE INSERT ON %2$s FOR EACH ROW
                BEGIN
                    DECLARE b DATETIME(3) DEFAULT %4$s;
                    IF %3$s = 1 THEN
                        %5$s
                    ELSE
                        INSERT INTO %1$s_key (event_no, bucket) VALUES (NEW.event_no, b - INTERVAL %6$d SECOND),
                            (NEW.event_no, b);
                    END IF;
                END""".formatted(t, on, MOVE_VARIABLE, bucket(origin, generation), moveKeys(t, generation),
                generation.toSeconds());
    }

    /** The start of the generation of {@code NEW.partition_time}: generations of {@code width} from {@code origin}. */
    private static String bucket(Instant origin, Duration width) {
        String o = "TIMESTAMP'" + BOUND.format(origin) + "'";
        long w = width.toSeconds();
        return "TIMESTAMPADD(SECOND, FLOOR(TIMESTAMPDIFF(SECOND, " + o + ", NEW.partition_time) / " + w + ") * " + w
                + ", " + o + ")";
    }

    /** The mover's key rows: those of the row's new generation {@code b} and the one before, no others. */
    private static String moveKeys(String t, Duration width) {
        return """
                DELETE FROM %1$s_key WHERE event_no = NEW.event_no AND bucket <> b AND bucket <> b - INTERVAL %2$d SECOND;
                        INSERT INTO %1$s_key (event_no, bucket) VALUES (NEW.event_no, b - INTERVAL %2$d SECOND), (NEW.event_no, b)
                            ON DUPLICATE KEY UPDATE bucket = VALUES(bucket);""".formatted(t, width.toSeconds());
    }

    /** The guard: event_no never changes, partition_time only through the mover, whose key rows follow. */
    private static String guardTrigger(String t, String on, Instant origin, Duration width) {
        return """
                CREATE TRIGGER %1$s_partition_guard BEFORE UPDATE ON %2$s FOR EACH ROW
                BEGIN
                    DECLARE b DATETIME(3) DEFAULT %4$s;
                    IF NOT (NEW.event_no <=> OLD.event_no) THEN
                        SIGNAL SQLSTATE '55000' SET MESSAGE_TEXT = 'event_no of %1$s cannot change (it is the idempotency key)';
                    END IF;
                    IF NOT (NEW.partition_time <=> OLD.partition_time) THEN
                        IF %3$s = 1 THEN
                            %5$s
                        ELSE
                            SIGNAL SQLSTATE '55000' SET MESSAGE_TEXT = 'partition_time of %1$s changes only through Postbox retention, which moves a row between partitions with its idempotency key';
                        END IF;
                    END IF;
                END""".formatted(t, on, MOVE_VARIABLE, bucket(origin, width), moveKeys(t, width));
    }

    static String partitionClause(Range r) {
        return "PARTITION " + r.name() + " VALUES LESS THAN (" + literal(BOUND.format(r.to())) + ")";
    }

    @Override
    public List<Range> partitions(Connection c, String table) throws SQLException {
        List<Range> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT PARTITION_NAME, PARTITION_DESCRIPTION, PARTITION_METHOD"
                + " FROM information_schema.PARTITIONS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?"
                + " AND PARTITION_NAME IS NOT NULL ORDER BY PARTITION_ORDINAL_POSITION")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                Instant previous = null;
                while (rs.next()) {
                    String name = rs.getString(1);
                    String bound = rs.getString(2);
                    if (!"RANGE COLUMNS".equals(rs.getString(3)) || bound == null || !bound.startsWith("'")) {
                        throw new SQLException("partition " + name + " of " + table + " is not a bounded time range ("
                                + rs.getString(3) + " " + bound + "): Postbox retention manages ranges it created only");
                    }
                    Instant to = LocalDateTime.parse(bound.substring(1, bound.length() - 1), READ_BOUND)
                            .toInstant(ZoneOffset.UTC);
                    Instant from = previous != null ? previous : startOf(table, name);
                    out.add(new Range(name, from, to));
                    previous = to;
                }
            }
        }
        return out;
    }

    /** The start the first partition's name carries (a RANGE partition has no lower bound of its own). */
    private static Instant startOf(String table, String name) throws SQLException {
        Matcher m = START.matcher(name);
        if (!m.find()) {
            throw new SQLException("the first partition " + name + " of " + table + " is not named <table>_pYYYYMMDD[HH]:"
                    + " Postbox retention manages partitions it created only");
        }
        String hour = m.group(2) == null ? "00" : m.group(2);
        return LocalDateTime.parse(m.group(1) + hour, DateTimeFormatter.ofPattern("yyyyMMddHH")).toInstant(ZoneOffset.UTC);
    }

    @Override
    public void create(Connection c, String table, Range range, Duration lockTimeout) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("ALTER TABLE " + table + " WAIT " + seconds(lockTimeout) + " ADD PARTITION ("
                    + partitionClause(range) + ")");
        }
    }

    @Override
    public long[] size(Connection c, String table, Range range) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT TABLE_ROWS, DATA_LENGTH + INDEX_LENGTH FROM"
                + " information_schema.PARTITIONS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND PARTITION_NAME = ?")) {
            ps.setString(1, table);
            ps.setString(2, range.name());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? new long[] {rs.getLong(1), rs.getLong(2)} : new long[] {-1, -1};
            }
        }
    }

    @Override
    public boolean empty(Connection c, String table, Range range) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT 1 FROM " + table + " PARTITION ("
                + range.name() + ") LIMIT 1")) {
            return !rs.next();
        }
    }

    /**
     * One {@code REORGANIZE PARTITION} (one wait for the table's metadata lock instead of one per partition; the
     * partitions are empty, so nothing is copied, and a row that came meanwhile would be copied, not lost).
     */
    @Override
    public void mergeEmpty(Connection c, String table, List<Range> ranges, Duration lockTimeout) throws SQLException {
        Range first = ranges.get(0);
        Range whole = new Range(first.name(), first.from(), ranges.get(ranges.size() - 1).to());
        try (Statement st = c.createStatement()) {
            st.execute("ALTER TABLE " + table + " WAIT " + seconds(lockTimeout) + " REORGANIZE PARTITION "
                    + String.join(", ", ranges.stream().map(Range::name).toList()) + " INTO (" + partitionClause(whole) + ")");
        }
    }

    @Override
    public boolean merges() {
        return true;
    }

    @Override
    public List<Row> unpublished(Connection c, String table, Range range, int limit) throws SQLException {
        return PartitionSql.rows(c, dialect, "SELECT " + ROW_COLUMNS + " FROM " + table + " PARTITION (" + range.name() + ") FORCE INDEX"
                + " (idx_status_id) WHERE publish_status IN (" + UNPUBLISHED_STATUSES + ") LIMIT ? FOR UPDATE NOWAIT", limit);
    }

    @Override
    public List<Row> unpublishedDetached(Connection c, String detached, int limit) throws SQLException {
        return PartitionSql.rows(c, dialect, "SELECT " + ROW_COLUMNS + " FROM " + detached + " FORCE INDEX (idx_status_id)"
                + " WHERE publish_status IN (" + UNPUBLISHED_STATUSES + ") LIMIT ?", limit);
    }

    @Override
    public int move(Connection c, String table, Range range, List<Long> ids) throws SQLException {
        if (ids.isEmpty()) {
            return 0;
        }
        setMove(c, true);
        // no PARTITION (...) selection: the row's new partition is outside it, which MariaDB refuses
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + table + " SET partition_time = UTC_TIMESTAMP(3)"
                + " WHERE id IN (" + marks(ids.size()) + ") AND partition_time < ?")) {
            bindIds(ps, ids);
            dialect.bindTime(ps, ids.size() + 1, range.to());
            return ps.executeUpdate();
        } finally {
            setMove(c, false);
        }
    }

    @Override
    public String detach(Connection c, String table, Range range, Duration lockTimeout) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("ALTER TABLE " + table + " WAIT " + seconds(lockTimeout) + " CONVERT PARTITION " + range.name()
                    + " TO TABLE " + range.name());
        }
        return range.name();
    }

    @Override
    public int restore(Connection c, String table, String detached, List<Long> ids) throws SQLException {
        if (ids.isEmpty()) {
            return 0;
        }
        String columns = String.join(", ", PartitionSql.columnsBut(c, table, "partition_time"));
        String in = " WHERE id IN (" + marks(ids.size()) + ")";
        int restored;
        setMove(c, true);
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " (" + columns + ") SELECT " + columns
                + " FROM " + detached + in)) {
            bindIds(ps, ids);
            restored = ps.executeUpdate();
        } finally {
            setMove(c, false);
        }
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + detached + in)) {
            bindIds(ps, ids);
            int deleted = ps.executeUpdate();
            if (deleted != restored) {
                throw new SQLException("restored " + restored + " rows of " + detached + " into " + table + " but deleted "
                        + deleted);
            }
        }
        return restored;
    }

    @Override
    public void dropDetached(Connection c, String detached) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("DROP TABLE " + detached);
        }
    }

    /** MariaDB's CONVERT PARTITION completes or not at all: what is left is a standalone table not yet dropped. */
    @Override
    public String pendingDetach(Connection c, String table, Duration lockTimeout) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT TABLE_NAME FROM information_schema.TABLES WHERE"
                + " TABLE_SCHEMA = DATABASE() AND TABLE_TYPE = 'BASE TABLE' AND TABLE_NAME LIKE ? ORDER BY TABLE_NAME")) {
            ps.setString(1, table.replace("_", "\\_") + "\\_p%");
            try (ResultSet rs = ps.executeQuery()) {
                Pattern own = Pattern.compile("^" + Pattern.quote(table.toLowerCase(Locale.ROOT)) + "_p\\d{8}(\\d{2})?$");
                while (rs.next()) {
                    if (own.matcher(rs.getString(1).toLowerCase(Locale.ROOT)).matches()) {
                        return rs.getString(1);
                    }
                }
            }
        }
        return null;
    }

    private static void setMove(Connection c, boolean on) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("SET " + MOVE_VARIABLE + " = " + (on ? "1" : "NULL"));
        }
    }

    /** DDL waits in whole seconds: at least 1. */
    private static long seconds(Duration lockTimeout) {
        return Math.max(1, (lockTimeout.toMillis() + 999) / 1000);
    }

    private static String marks(int n) {
        return String.join(", ", Collections.nCopies(n, "?"));
    }

    private static void bindIds(PreparedStatement ps, List<Long> ids) throws SQLException {
        for (int i = 0; i < ids.size(); i++) {
            ps.setLong(i + 1, ids.get(i));
        }
    }

    private static boolean exists(Connection c, String table) throws SQLException {
        return stringOf(c, "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()"
                + " AND TABLE_NAME = ?", table) != null;
    }

    private static long autoIncrement(Connection c, String table) throws SQLException {
        String value = stringOf(c, "SELECT AUTO_INCREMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()"
                + " AND TABLE_NAME = ?", table);
        return value == null ? 1 : Long.parseLong(value);
    }

    private static String stringOf(Connection c, String sql, String param) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, param);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    private static String literal(String text) {
        return "'" + text.replace("\\", "\\\\").replace("'", "''") + "'";
    }
}
