package dev.postbox.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * Already-published history: {@code rows} rows {@code H-1..H-<rows>} with status PUBLISHED over the same
 * aggregates as the drained events, inserted before them (so their ids, assigned by the database, are below
 * every drained event's, as old rows are) by one set-based INSERT per {@value #CHUNK} rows from the
 * database's own row generator. Each row is the size of a real one, like the drained events
 * ({@link EventWriter#event}): an order of about 400 bytes, two headers, a trace id and a routing key, so
 * the table and its indexes have the size a real history gives them.
 */
final class History {

    static final int CHUNK = 100_000;

    private static final String COLUMNS = "event_no, aggregate_type, aggregate_id, event_type, event_version,"
            + " event_source, publish_channel, topic, routing_key, event_payload, event_headers, trace_id,"
            + " publish_status, retry_count, max_retry_count,"
            + " version, deleted, last_publish_time, published_time, create_time, update_time";

    private History() {
    }

    static void insert(BenchContext ctx, int rows, int aggregates) {
        insert(ctx, rows, aggregates, 1);
    }

    /** The same, every row's times {@code ageDays} days in the past (retention's history is older than its cutoff). */
    static void insert(BenchContext ctx, int rows, int aggregates, int ageDays) {
        insert(ctx, rows, aggregates, ageDays, false);
    }

    /**
     * The same; {@code partitioned}: the outbox is the time-partitioned variant, and each row's partition_time is
     * its create_time (the rows land in the partition of {@code ageDays} ago, as if written then).
     */
    static void insert(BenchContext ctx, int rows, int aggregates, int ageDays, boolean partitioned) {
        if (rows == 0) {
            return;
        }
        long started = System.nanoTime();
        for (long from = 1; from <= rows; from += CHUNK) {
            long to = Math.min(rows, from + CHUNK - 1);
            String select = select(ctx.db.kind(), from, to, aggregates, ageDays);
            ctx.db.execute("INSERT INTO " + ctx.outbox() + " (" + COLUMNS + (partitioned ? ", partition_time" : "") + ") "
                    + (partitioned ? select.replace(", t, t, t, t FROM", ", t, t, t, t, t FROM") : select));
        }
        double s = (System.nanoTime() - started) / 1e9;
        Fmt.line("HISTORY published_rows=" + rows + " age_days=" + ageDays + " partitioned=" + partitioned + " seconds="
                + Fmt.two(s));
    }

    /** The INSERT's SELECT on {@code kind}; package-private for the test that checks the payload it builds. */
    static String select(String kind, long from, long to, int aggregates) {
        return select(kind, from, to, aggregates, 1);
    }

    /** The same with every time {@code ageDays} days in the past. */
    static String select(String kind, long from, long to, int aggregates, int ageDays) {
        String n = switch (kind) {
            case "postgres" -> "n";
            case "mariadb" -> "seq";
            case "h2" -> "X";
            default -> throw new IllegalArgumentException(kind);
        };
        String aggregate = concat(kind, "'A'", mod(kind, n, aggregates));
        String payload = payload(kind, n, aggregate);
        String headers = concat(kind, "'{\"tenant-id\":\"tenant-'", mod(kind, n, 16), "'\",\"schema\":\"order-changed/v3\"}'");
        String values = concat(kind, "'H-'", n) + ", 'ORDER', " + aggregate + ", 'ORDER_CHANGED', 1, 'bench', 'MQ',"
                + " 'order.event', 'order.eu.changed', ";
        return switch (kind) {
            case "postgres" -> "SELECT " + values + "(" + payload + ")::json, (" + headers + ")::jsonb, md5(n::text),"
                    + " 2, 0, 5, 2, 0, t, t, t, t"
                    + " FROM generate_series(" + from + ", " + to + ") AS n, (SELECT now() - interval '" + ageDays + " days' AS t) AS x";
            case "mariadb" -> "SELECT " + values + payload + ", " + headers + ", MD5(seq), 2, 0, 5, 2, 0, t, t, t, t"
                    + " FROM seq_" + from + "_to_" + to + ", (SELECT UTC_TIMESTAMP(3) - INTERVAL " + ageDays + " DAY AS t) AS x";
            default -> "SELECT " + values + "(" + payload + ") FORMAT JSON, (" + headers + ") FORMAT JSON,"
                    + " LPAD(CAST(X AS VARCHAR), 32, '0'), 2, 0, 5, 2, 0, t, t, t, t"
                    + " FROM SYSTEM_RANGE(" + from + ", " + to + "), (SELECT CURRENT_TIMESTAMP - INTERVAL '" + ageDays + "' DAY AS t) AS x";
        };
    }

    /** An order of three lines, about 400 bytes, varied by {@code n} (SQL text over the row number {@code n}). */
    private static String payload(String kind, String n, String aggregate) {
        List<String> parts = new ArrayList<>();
        parts.add("'{\"orderId\":\"'");
        parts.add(aggregate);
        parts.add("'\",\"seq\":'");
        parts.add(n);
        parts.add("',\"customerId\":\"C-'");
        parts.add("(100000 + " + mod(kind, n, 900_000) + ")");
        parts.add("'\",\"status\":\"SHIPPED\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"BOOK-'");
        parts.add("(10000 + " + mod(kind, n, 90_000) + ")");
        parts.add("'\",\"qty\":2,\"unitPrice\":12.50},{\"sku\":\"MUG-'");
        parts.add("(10000 + " + mod(kind, n, 89_989) + ")");
        parts.add("'\",\"qty\":1,\"unitPrice\":7.99},{\"sku\":\"PEN-'");
        parts.add("(10000 + " + mod(kind, n, 89_977) + ")");
        parts.add("'\",\"qty\":3,\"unitPrice\":1.20}],\"total\":36.59,\"shipTo\":{\"country\":\"DE\",\"postcode\":\"'");
        parts.add("(10000 + " + mod(kind, n, 89_963) + ")");
        parts.add("'\",\"method\":\"STANDARD\"},\"salesChannel\":\"web\",\"placedAt\":\"2026-10-01T10:00:00Z\"}'");
        return concat(kind, parts.toArray(String[]::new));
    }

    private static String mod(String kind, String n, int m) {
        return kind.equals("h2") ? "MOD(" + n + ", " + m + ")" : "(" + n + " % " + m + ")";
    }

    /** String concatenation: MariaDB's {@code ||} is OR unless the server's SQL mode says otherwise. */
    private static String concat(String kind, String... parts) {
        return kind.equals("mariadb") ? "CONCAT(" + String.join(", ", parts) + ")" : String.join(" || ", parts);
    }
}
