package dev.postbox.retention;

import dev.postbox.jdbc.Dialect;
import dev.postbox.jdbc.TableNames;
import dev.postbox.outbox.OutboxStatus;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The statements of one table's retention. The table is walked by primary key in windows of at most a
 * batch of rows ({@code id > cursor ORDER BY id LIMIT n}: an index range, never a scan of the table), and
 * each window's removable rows are removed in one short transaction: locked first (so none of them can
 * change state meanwhile), then copied to the archive when archiving, then deleted by primary key. A row
 * is thus in exactly one of the two tables at every moment, also when the process dies mid-batch: the
 * transaction either committed both or neither. Which rows are removable is decided by the database in
 * the locking statement ({@code status = x AND update_time < cutoff}), never from what was read before.
 * An outbox DEAD row that still holds back a later event of its aggregate is kept: removing it would
 * release that event, which only a person's cancel may do.
 */
final class Sweep {

    /** One window of the walk: the ids in it, and whether every row in it is younger than every cutoff. */
    record Window(int rows, long lastId, boolean allYoung) {
    }

    private final Dialect dialect;
    private final RetentionTable table;
    private final String name;
    private final String archive;
    private final List<RetentionPolicy.Rule> rules;
    private final boolean deadRule;
    private final String windowSql;
    private final String eligible;
    private final String lockSql;
    private final String countSql;
    private final String holdsBackSql;
    private final int timeoutSeconds;
    private String archiveColumns;

    Sweep(Dialect dialect, TableNames tables, RetentionTable table, List<RetentionPolicy.Rule> rules,
          int timeoutSeconds) {
        this.dialect = dialect;
        this.timeoutSeconds = timeoutSeconds;
        this.table = table;
        this.name = table.table(tables);
        this.archive = table.archivable() ? table.archive(tables) : null;
        this.rules = List.copyOf(rules);
        this.deadRule = table == RetentionTable.OUTBOX
                && rules.stream().anyMatch(r -> OutboxStatus.DEAD.name().equals(r.status()));
        this.windowSql = "SELECT id, create_time FROM %s%s WHERE id > ? ORDER BY id LIMIT ?"
                .formatted(name, dialect.forceIndex("PRIMARY"));
        List<String> terms = new ArrayList<>();
        for (RetentionPolicy.Rule r : rules) {
            terms.add(r.status() == null ? "%s < ?".formatted(table.ageColumn())
                    : "(%s = %s AND %s < ?)".formatted(table.statusColumn(), table.statusLiteral(r.status()), table.ageColumn()));
        }
        this.eligible = "(" + String.join(" OR ", terms) + ")";
        String status = table.statusColumn() == null ? "NULL" : table.statusColumn();
        String extra = table == RetentionTable.OUTBOX ? ", aggregate_type, aggregate_id" : ", NULL, NULL";
        this.lockSql = "SELECT id, %s%s FROM %s%s WHERE id > ? AND id <= ? AND %s ORDER BY id FOR UPDATE"
                .formatted(status, extra, name, dialect.forceIndex("PRIMARY"), eligible);
        this.countSql = "SELECT id, %s%s FROM %s%s WHERE id > ? AND id <= ? AND %s ORDER BY id"
                .formatted(status, extra, name, dialect.forceIndex("PRIMARY"), eligible);
        this.holdsBackSql = holdsBackSql(name);
    }

    /**
     * The probe for a later unfinished event of a DEAD row's aggregate (parameters: aggregate type, aggregate id,
     * the DEAD row's id): a row found means the DEAD row holds it back and is kept.
     */
    static String holdsBackSql(String outbox) {
        return """
                SELECT id FROM %s WHERE aggregate_type = ? AND aggregate_id = ? AND id > ? AND deleted = 0\
                 AND publish_status IN (%d, %d, %d) LIMIT 1""".formatted(outbox, OutboxStatus.PENDING.code(),
                OutboxStatus.PUBLISHING.code(), OutboxStatus.FAILED.code());
    }

    RetentionTable table() {
        return table;
    }

    /**
     * Prepares a retention transaction on {@code c}: READ COMMITTED (InnoDB then locks only the rows that
     * match, and no gaps), the dialect's plan settings of claims (PostgreSQL: no sorts, so a window reads
     * the primary key in order and stops at its LIMIT even on a table never analyzed, where the planner
     * would otherwise sort a sequential scan) and a lock timeout ({@code lockSql}, may be null).
     */
    void begin(Connection c, String lockSql) throws SQLException {
        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        String planSql = dialect.claimPlanSql();
        try (Statement st = c.createStatement()) {
            if (planSql != null) {
                st.execute(planSql);
            }
            if (lockSql != null) {
                st.execute(lockSql);
            }
        }
    }

    /** The statements that read the table (the window, the locking read of a window's rows), for plan checks. */
    List<String> readingStatements() {
        return List.of(windowSql, lockSql);
    }

    /** The next window after {@code after}: at most {@code size} ids in id order. */
    Window window(Connection c, long after, int size, Instant newestCutoff) throws SQLException {
        try (PreparedStatement ps = prepare(c, windowSql)) {
            ps.setLong(1, after);
            ps.setInt(2, size);
            int rows = 0;
            long last = after;
            boolean allYoung = true;
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows++;
                    last = rs.getLong(1);
                    Instant created = dialect.readTime(rs, "create_time");
                    if (created == null || created.isBefore(newestCutoff)) {
                        allYoung = false;
                    }
                }
            }
            return new Window(rows, last, allYoung);
        }
    }

    /**
     * Removes the removable rows with ids in {@code (after, last]} (deleted, or archived when
     * {@code archiveAt} is not null, stamped with it); returns how many. Runs inside the caller's transaction.
     */
    int remove(Connection c, long after, long last, Instant[] cutoffs, Instant archiveAt) throws SQLException {
        List<Long> ids = new ArrayList<>();
        for (Candidate k : candidates(c, lockSql, after, last, cutoffs)) {
            ids.add(k.id());
        }
        if (ids.isEmpty()) {
            return 0;
        }
        if (archiveAt != null) {
            String columns = archiveColumns(c);
            int copied;
            try (PreparedStatement ps = prepare(c, "INSERT INTO %s (%s, archived_time) SELECT %s, ? FROM %s WHERE %s"
                    .formatted(archive, columns, columns, name, idList(ids.size())))) {
                dialect.bindTime(ps, 1, archiveAt);
                bindIds(c, ps, 2, ids);
                copied = ps.executeUpdate();
            }
            if (copied != ids.size()) {
                throw new SQLException("archived " + copied + " rows of " + name + " for " + ids.size() + " locked ones");
            }
        }
        int deleted;
        try (PreparedStatement ps = prepare(c, "DELETE FROM %s WHERE %s".formatted(name, idList(ids.size())))) {
            bindIds(c, ps, 1, ids);
            deleted = ps.executeUpdate();
        }
        if (deleted != ids.size()) {
            throw new SQLException("deleted " + deleted + " rows of " + name + " for " + ids.size() + " locked ones");
        }
        return deleted;
    }

    /** What {@link #remove} would remove in {@code (after, last]}, per status (the consume log: "ANY"). */
    Map<String, Long> count(Connection c, long after, long last, Instant[] cutoffs) throws SQLException {
        Map<String, Long> out = new LinkedHashMap<>();
        for (Candidate k : candidates(c, countSql, after, last, cutoffs)) {
            out.merge(k.status(), 1L, Long::sum);
        }
        return out;
    }

    private record Candidate(long id, String status) {
    }

    /** The removable rows of the range, DEAD outbox rows that hold back a later event left out. */
    private List<Candidate> candidates(Connection c, String sql, long after, long last, Instant[] cutoffs)
            throws SQLException {
        List<Candidate> out = new ArrayList<>();
        List<String[]> dead = new ArrayList<>();
        try (PreparedStatement ps = prepare(c, sql)) {
            ps.setLong(1, after);
            ps.setLong(2, last);
            for (int i = 0; i < cutoffs.length; i++) {
                dialect.bindTime(ps, 3 + i, cutoffs[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    long id = rs.getLong(1);
                    String status = statusName(rs.getString(2));
                    out.add(new Candidate(id, status));
                    if (deadRule && OutboxStatus.DEAD.name().equals(status)) {
                        dead.add(new String[] {String.valueOf(id), rs.getString(3), rs.getString(4)});
                    }
                }
            }
        }
        if (!dead.isEmpty()) {
            Set<Long> holding = new HashSet<>();
            try (PreparedStatement ps = prepare(c, holdsBackSql)) {
                for (String[] d : dead) {
                    ps.setString(1, d[1]);
                    ps.setString(2, d[2]);
                    ps.setLong(3, Long.parseLong(d[0]));
                    try (ResultSet rs = ps.executeQuery()) {
                        if (rs.next()) {
                            holding.add(Long.parseLong(d[0]));
                        }
                    }
                }
            }
            out.removeIf(k -> holding.contains(k.id()));
        }
        return out;
    }

    private String statusName(String stored) {
        if (table.statusColumn() == null) {
            return "ANY";
        }
        if (table == RetentionTable.OUTBOX) {
            return OutboxStatus.of(Integer.parseInt(stored)).name();
        }
        if (table == RetentionTable.MESSAGES) {
            return dev.postbox.message.MessageStatus.of(Integer.parseInt(stored)).name();
        }
        return stored;
    }

    /** The cutoff parameters of the eligibility condition, in rule order, at {@code now}. */
    Instant[] cutoffs(Instant now) {
        Instant[] out = new Instant[rules.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = now.minus(rules.get(i).keep());
        }
        return out;
    }

    /** The columns the online table and its archive share, in the online table's order (read once). */
    private String archiveColumns(Connection c) throws SQLException {
        if (archiveColumns == null) {
            List<String> online = columns(c, name);
            Set<String> archived = new HashSet<>(columns(c, archive));
            if (!archived.contains("archived_time")) {
                throw new SQLException(archive + " has no archived_time column: not a Postbox archive table");
            }
            List<String> shared = online.stream().filter(archived::contains).toList();
            if (shared.size() != online.size()) {
                List<String> missing = new ArrayList<>(online);
                missing.removeAll(shared);
                throw new SQLException(archive + " lacks columns of " + name + ": " + missing
                        + " (install the schema's newest version)");
            }
            archiveColumns = String.join(", ", shared);
        }
        return archiveColumns;
    }

    private static List<String> columns(Connection c, String table) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT * FROM " + table + " WHERE 1 = 0")) {
            ResultSetMetaData md = rs.getMetaData();
            List<String> out = new ArrayList<>();
            for (int i = 1; i <= md.getColumnCount(); i++) {
                out.add(md.getColumnName(i).toLowerCase(Locale.ROOT));
            }
            return out;
        }
    }

    /** {@code sql} prepared with the statement timeout. */
    private PreparedStatement prepare(Connection c, String sql) throws SQLException {
        PreparedStatement ps = c.prepareStatement(sql);
        ps.setQueryTimeout(timeoutSeconds);
        return ps;
    }

    private String idList(int n) {
        return dialect.idArrays() ? "id = ANY (?)" : "id IN (" + String.join(", ", Collections.nCopies(n, "?")) + ")";
    }

    private void bindIds(Connection c, PreparedStatement ps, int first, List<Long> ids) throws SQLException {
        if (dialect.idArrays()) {
            ps.setArray(first, c.createArrayOf("bigint", ids.toArray()));
            return;
        }
        int i = first;
        for (Long id : ids) {
            ps.setLong(i++, id);
        }
    }
}
