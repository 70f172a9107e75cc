package dev.postbox.bench;

/**
 * Already-published history: {@code rows} rows {@code H-1..H-<rows>} with status PUBLISHED over the same
 * aggregates as the drained events, inserted before them (so their ids, assigned by the database, are below
 * every drained event's, as old rows are) by one set-based INSERT per {@value #CHUNK} rows from the
 * database's own row generator.
 */
final class History {

    static final int CHUNK = 100_000;

    private static final String COLUMNS = "event_no, aggregate_type, aggregate_id, event_type, event_version,"
            + " event_source, publish_channel, topic, event_payload, publish_status, retry_count, max_retry_count,"
            + " version, deleted, last_publish_time, published_time, create_time, update_time";

    private History() {
    }

    static void insert(BenchContext ctx, int rows, int aggregates) {
        if (rows == 0) {
            return;
        }
        long started = System.nanoTime();
        for (long from = 1; from <= rows; from += CHUNK) {
            long to = Math.min(rows, from + CHUNK - 1);
            ctx.db.execute("INSERT INTO " + ctx.outbox() + " (" + COLUMNS + ") " + select(ctx.db.kind(), from, to, aggregates));
        }
        double s = (System.nanoTime() - started) / 1e9;
        Fmt.line("HISTORY published_rows=" + rows + " seconds=" + Fmt.two(s));
    }

    private static String select(String kind, long from, long to, int aggregates) {
        return switch (kind) {
            case "postgres" -> "SELECT 'H-' || n, 'ORDER', 'A' || (n % " + aggregates + "), 'ORDER_CHANGED', 1, 'bench',"
                    + " 'MQ', 'order.event', ('{\"seq\":' || n || '}')::json, 2, 0, 5, 2, 0, t, t, t, t"
                    + " FROM generate_series(" + from + ", " + to + ") AS n, (SELECT now() - interval '1 day' AS t) AS x";
            case "mariadb" -> "SELECT CONCAT('H-', seq), 'ORDER', CONCAT('A', seq % " + aggregates + "), 'ORDER_CHANGED',"
                    + " 1, 'bench', 'MQ', 'order.event', CONCAT('{\"seq\":', seq, '}'), 2, 0, 5, 2, 0, t, t, t, t"
                    + " FROM seq_" + from + "_to_" + to + ", (SELECT UTC_TIMESTAMP(3) - INTERVAL 1 DAY AS t) AS x";
            case "h2" -> "SELECT 'H-' || X, 'ORDER', 'A' || MOD(X, " + aggregates + "), 'ORDER_CHANGED', 1, 'bench',"
                    + " 'MQ', 'order.event', JSON_OBJECT('seq': X), 2, 0, 5, 2, 0, t, t, t, t"
                    + " FROM SYSTEM_RANGE(" + from + ", " + to + "), (SELECT CURRENT_TIMESTAMP - INTERVAL '1' DAY AS t) AS x";
            default -> throw new IllegalArgumentException(kind);
        };
    }
}
