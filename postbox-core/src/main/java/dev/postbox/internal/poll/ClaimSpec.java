package dev.postbox.internal.poll;

import dev.postbox.jdbc.Dialect;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;

/**
 * What a {@link VersionedClaim} needs to know about one job's table; the rest (how each database claims)
 * is the engine's. The job's package builds it once, so that the engine never imports the job (its
 * records, its status enum): the table, how its rows map to the job's records, its status column with the
 * claimable and claimed statuses as constants of the job's own enum, the due-time and version columns,
 * the job's own filter and the MySQL index the candidate reads walk.
 * <p>
 * The table's primary key is a {@code BIGINT} column {@code id} (MySQL's locking read of the chosen candidates
 * names it: {@code FORCE INDEX (PRIMARY)}); every SQL fragment here refers to the claimed table by the alias
 * {@code e}.
 *
 * @param table    the table, as the job's {@code TableNames} spell it
 * @param rows     its columns and how a row becomes a record
 * @param statuses the status column and which statuses a claim moves from and to
 * @param columns  the due-time, version and time-stamp columns a claim reads and writes
 * @param filter   which rows of the table are this claimer's at all
 * @param index    the index MySQL's candidate reads are forced onto
 * @param <R>      the job's record of one row
 * @param <S>      the job's status enum
 */
public record ClaimSpec<R, S extends Enum<S>>(String table, Rows<R> rows, Statuses<S> statuses, Columns columns,
                                              Filter filter, Index index) {

    public ClaimSpec {
        require(table, "table");
        Objects.requireNonNull(rows, "rows");
        Objects.requireNonNull(statuses, "statuses");
        Objects.requireNonNull(columns, "columns");
        Objects.requireNonNull(filter, "filter");
        Objects.requireNonNull(index, "index");
    }

    /** Reads the current row of a result that selected {@link Rows#columns()}. */
    @FunctionalInterface
    public interface RowMapper<R> {
        R read(ResultSet rs, Dialect dialect) throws SQLException;
    }

    /** The record a claim at {@code now} leaves: the claimed status, the next version, the claim time. */
    @FunctionalInterface
    public interface ClaimedCopy<R> {
        R claimed(R row, Instant now);
    }

    /**
     * The table's columns and its records.
     *
     * @param columns every column a claim returns, comma-separated, unqualified, on one line of SQL
     * @param mapper  a row of those columns as a record
     * @param id      the record's {@code id}
     * @param version the record's version (the fence)
     * @param claimed the record as a claim left it, for the ways that do not re-read the row
     */
    public record Rows<R>(String columns, RowMapper<R> mapper, ToLongFunction<R> id, ToIntFunction<R> version,
                          ClaimedCopy<R> claimed) {
        public Rows {
            require(columns, "rows.columns");
            Objects.requireNonNull(mapper, "rows.mapper");
            Objects.requireNonNull(id, "rows.id");
            Objects.requireNonNull(version, "rows.version");
            Objects.requireNonNull(claimed, "rows.claimed");
        }

        /** The columns, each qualified by {@code alias}: {@code u.id, u.status, ...}. */
        String qualified(String alias) {
            return Arrays.stream(columns.split(",")).map(col -> alias + "." + col.strip())
                    .collect(Collectors.joining(", "));
        }
    }

    /**
     * The status column and the statuses a claim moves, as constants of the job's enum.
     *
     * @param column  the status column
     * @param code    the value stored for a status
     * @param ready   claimable at once (e.g. PENDING)
     * @param due     claimable once its due time has passed (e.g. FAILED, waiting for a retry)
     * @param claimed what a claim moves them to (e.g. PROCESSING)
     */
    public record Statuses<S extends Enum<S>>(String column, ToIntFunction<S> code, S ready, S due, S claimed) {
        public Statuses {
            require(column, "statuses.column");
            Objects.requireNonNull(code, "statuses.code");
            Objects.requireNonNull(ready, "statuses.ready");
            Objects.requireNonNull(due, "statuses.due");
            Objects.requireNonNull(claimed, "statuses.claimed");
            if (ready == due || ready == claimed || due == claimed) {
                throw new IllegalArgumentException("statuses: ready (" + ready + "), due (" + due + ") and claimed ("
                        + claimed + ") must be three different statuses");
            }
        }

        int readyCode() {
            return code.applyAsInt(ready);
        }

        int dueCode() {
            return code.applyAsInt(due);
        }

        int claimedCode() {
            return code.applyAsInt(claimed);
        }
    }

    /**
     * The columns a claim reads and writes besides the status.
     *
     * @param due       when a row in the due status becomes claimable ({@code <= now})
     * @param version   the fence: a claim adds one, every later write names the version it claimed
     * @param claimedAt set to the claim time before the version (e.g. {@code last_handle_time}), or null
     * @param updatedAt set to the claim time after the version (e.g. {@code update_time}), or null
     */
    public record Columns(String due, String version, String claimedAt, String updatedAt) {
        public Columns {
            require(due, "columns.due");
            require(version, "columns.version");
        }

        /** How many time parameters the claim's SET binds (each to the claim time). */
        int stamps() {
            return (claimedAt == null ? 0 : 1) + (updatedAt == null ? 0 : 1);
        }
    }

    /**
     * Which rows are this claimer's.
     *
     * @param live a condition without parameters every claimed row meets, also re-checked under the lock
     *             (e.g. {@code e.deleted = 0}), or null
     * @param sql  a condition whose parameters are {@code args} (e.g. {@code e.event_type IN (?, ?)}), or null
     * @param args the strings bound to {@code sql}'s parameters, in order
     */
    public record Filter(String live, String sql, List<String> args) {

        /** Every row of the table. */
        public static final Filter NONE = new Filter(null, null, List.of());

        public Filter {
            args = List.copyOf(args);
            int marks = sql == null ? 0 : (int) sql.chars().filter(ch -> ch == '?').count();
            if (marks != args.size()) {
                throw new IllegalArgumentException("filter.args: " + args.size() + " given for " + marks
                        + " parameters of '" + sql + "'");
            }
        }

        /** {@code column IN (?, ...)} over {@code values}: the filter of a claimer of some values of a column. */
        public static Filter in(String live, String column, List<String> values) {
            if (values.isEmpty()) {
                throw new IllegalArgumentException("filter.args: at least one value of " + column + " is needed");
            }
            return new Filter(live, column + " IN (" + parameters(values.size()) + ")", values);
        }
    }

    /**
     * The index MySQL's candidate reads are forced onto, and its columns as an ORDER BY, so that a read
     * stops after the rows it wants instead of sorting the whole backlog.
     *
     * @param name    the index name
     * @param orderBy its columns, qualified by {@code e} (e.g. {@code e.next_retry_time, e.retry_count, e.id})
     */
    public record Index(String name, String orderBy) {
        public Index {
            require(name, "index.name");
            require(orderBy, "index.orderBy");
        }
    }

    /** {@code n} parameters: {@code ?, ?, ?}. */
    static String parameters(int n) {
        return String.join(", ", Collections.nCopies(n, "?"));
    }

    /** {@code parts} that are not null, joined by {@code AND}. */
    static String and(String... parts) {
        return Arrays.stream(parts).filter(Objects::nonNull).collect(Collectors.joining(" AND "));
    }

    /**
     * The SET of a claim: the claimed status, the claim time, the next version, the update time; the time
     * parameters ({@link Columns#stamps()}) are bound to the claim time.
     */
    String claimSet() {
        StringBuilder set = new StringBuilder().append(statuses.column()).append(" = ").append(statuses.claimedCode());
        if (columns.claimedAt() != null) {
            set.append(", ").append(columns.claimedAt()).append(" = ?");
        }
        set.append(", ").append(columns.version()).append(" = ").append(columns.version()).append(" + 1");
        if (columns.updatedAt() != null) {
            set.append(", ").append(columns.updatedAt()).append(" = ?");
        }
        return set.toString();
    }

    /** {@code e.status = READY}: rows claimable at once. */
    String readyCondition() {
        return "e." + statuses.column() + " = " + statuses.readyCode();
    }

    /** {@code e.status = DUE AND e.due <= ?}: rows whose due time has passed. */
    String dueCondition() {
        return "e." + statuses.column() + " = " + statuses.dueCode() + " AND e." + columns.due() + " <= ?";
    }

    private static void require(String value, String name) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(name + ": must be given");
        }
    }
}
