package dev.postbox.bench;

import dev.postbox.query.OutboxSearch;
import dev.postbox.query.PageRequest;
import org.HdrHistogram.Histogram;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Function;

/**
 * {@code search}: the console's search on a large outbox. Preloads {@code --rows} events (default 5 million)
 * as a service accumulates them over {@value #DAYS} days: orders with {@value #EVENTS_PER_ORDER} events each
 * ({@code ORD-<n>}), {@value #TYPES_COUNT} event types, {@value #TOPICS_COUNT} topics, a trace id per event,
 * creation times spread evenly over the days in id order; one event in a thousand DEAD and one FAILED, with an
 * error text, one PENDING; the rest PUBLISHED. Then ANALYZE, as a table that size in service is.
 *
 * <p>Then, per qualifier, {@code --searches} first pages of {@code --limit} rows with values drawn at random
 * from what the table holds (after {@value #WARMUP} unmeasured ones), through
 * {@code postbox.queries().outboxSearch()}, and reports p50, p99 and max latency, the rows of the driving index
 * read per page, and how many pages stopped at {@link OutboxSearch#MAX_EXAMINED} before they were full. The
 * ceiling is a primary-key lookup of a random row of the same table, measured the same way in the same run.
 * RESULT has each qualifier's p99, the worst, and {@code pass=true} when every p99 is below
 * {@code --target-ms} (the 200 ms) and every case found rows (each looks for values the preload wrote, so
 * a case finding nothing measures nothing). No cpu_ms_per_1k: there are no events to count.
 */
final class SearchBench implements Scenario {

    static final int DAYS = 30;
    static final int EVENTS_PER_ORDER = 5;
    static final int WARMUP = 20;
    static final int CHUNK = 100_000;
    static final String[] TYPES = {"ORDER_CREATED", "ORDER_PAID", "STOCK_RESERVED", "ORDER_SHIPPED", "INVOICE_ISSUED",
            "ORDER_DELIVERED", "REFUND_ISSUED", "ORDER_CANCELLED"};
    static final String[] TOPICS = {"orders", "payments", "stock", "invoices", "shipping"};
    static final int TYPES_COUNT = 8;
    static final int TOPICS_COUNT = 5;

    @Override
    public String name() {
        return "search";
    }

    @Override
    public Map<String, String> defaults() {
        Map<String, String> d = new LinkedHashMap<>();
        d.put("db", "postgres");
        d.put("rows", "5000000");
        d.put("searches", "200");
        d.put("limit", "50");
        d.put("target-ms", "200");
        d.put("seed", "42");
        return d;
    }

    @Override
    public void validate(Options o) {
        if (BenchDatabase.kind(o.string("db")).equals("h2")) {
            throw new UsageException("search runs on --db postgres or mariadb");
        }
        if (o.positiveInt("rows") < 10_000) {
            throw new UsageException("option --rows must be at least 10000 (was " + o.string("rows") + ")");
        }
        o.positiveInt("searches");
        int limit = o.positiveInt("limit");
        if (limit > 500) {
            throw new UsageException("option --limit must be at most 500 (was " + limit + ")");
        }
        o.positiveInt("target-ms");
        o.positiveInt("seed");
    }

    @Override
    public boolean notifications(Options o) {
        return false;
    }

    @Override
    public int poolSize(Options o) {
        return 2;
    }

    /** One measured qualifier: how to make the i-th search text. */
    private record Case(String name, Function<SplittableRandom, String> query) {
    }

    @Override
    public Outcome run(BenchContext ctx, Options o, Ceiling.Result ceiling) throws Exception {
        int rows = o.positiveInt("rows");
        int searches = o.positiveInt("searches");
        int limit = o.positiveInt("limit");
        int target = o.positiveInt("target-ms");
        preload(ctx, rows);
        ctx.db.analyze(ctx.outbox());
        long orders = Math.max(1, rows / EVENTS_PER_ORDER);
        Instant now = Instant.now();
        SplittableRandom random = new SplittableRandom(o.positiveInt("seed"));

        Histogram pk = new Histogram(60_000_000L, 3);
        try (Connection c = ctx.pool.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT * FROM " + ctx.outbox() + " WHERE id = ?")) {
            for (int i = 0; i < WARMUP + searches; i++) {
                ps.setLong(1, 1 + random.nextInt(rows));
                long t = System.nanoTime();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        rs.getString("event_payload");
                    }
                }
                if (i >= WARMUP) {
                    pk.recordValue(Math.max(1, (System.nanoTime() - t) / 1000));
                }
            }
            c.commit();
        }
        Fmt.line("READ_CEILING pk_lookup_p50_ms=" + Fmt.ms(pk.getValueAtPercentile(50)) + " pk_lookup_p99_ms="
                + Fmt.ms(pk.getValueAtPercentile(99)));

        List<Case> cases = List.of(
                new Case("event_no", r -> "event_no:S-" + (1 + r.nextInt(rows))),
                new Case("order_id", r -> "ORD-" + r.nextLong(orders)),
                new Case("aggregate", r -> "aggregate:ORDER/ORD-" + r.nextLong(orders)),
                new Case("trace", r -> "trace:" + md5(Long.toString(1 + r.nextInt(rows)))),
                new Case("status_dead", r -> "status:dead"),
                new Case("status_failed_topic", r -> "status:failed topic:" + TOPICS[r.nextInt(TOPICS.length)]),
                new Case("type", r -> "type:" + TYPES[r.nextInt(TYPES.length)]),
                new Case("type_day", r -> "type:" + TYPES[r.nextInt(TYPES.length)] + " " + dayRange(now, r)),
                new Case("topic", r -> "topic:" + TOPICS[r.nextInt(TOPICS.length)]),
                new Case("topic_day", r -> "topic:" + TOPICS[r.nextInt(TOPICS.length)] + " " + dayRange(now, r)),
                new Case("created_hour", r -> hourRange(now, r)),
                new Case("dead_error", r -> "status:dead error:\"broker-" + r.nextInt(7) + "\""),
                new Case("attempts", r -> "status:failed,dead attempts>=3"),
                new Case("published_day", r -> "status:published " + dayRange(now, r)));
        Fmt.line("NOTE each case: " + searches + " first pages of " + limit + " after " + WARMUP
                + " unmeasured");

        OutboxSearch search = ctx.postbox.queries().outboxSearch();
        StringBuilder result = new StringBuilder("RESULT scenario=search db=" + ctx.db.kind() + " rows=" + rows + " searches=" + searches + " limit=" + limit
                + " pk_p99_ms=" + Fmt.ms(pk.getValueAtPercentile(99)));
        double worst = 0;
        String worstName = "";
        List<String> empty = new java.util.ArrayList<>();
        for (Case k : cases) {
            Histogram h = new Histogram(600_000_000L, 3);
            long examined = 0;
            long incomplete = 0;
            long found = 0;
            String driver = "";
            for (int i = 0; i < WARMUP + searches; i++) {
                String q = k.query().apply(random);
                long t = System.nanoTime();
                OutboxSearch.Result page = search.search(q, PageRequest.first(limit));
                long micros = Math.max(1, (System.nanoTime() - t) / 1000);
                if (i >= WARMUP) {
                    h.recordValue(micros);
                    examined += page.examined();
                    found += page.items().size();
                    incomplete += page.complete() ? 0 : 1;
                    driver = page.driver().name().toLowerCase(java.util.Locale.ROOT);
                }
            }
            if (found == 0) {
                empty.add(k.name());
            }
            double p99 = h.getValueAtPercentile(99) / 1000.0;
            if (p99 > worst) {
                worst = p99;
                worstName = k.name();
            }
            Fmt.line("CASE name=" + k.name() + " driver=" + driver + " p50_ms=" + Fmt.ms(h.getValueAtPercentile(50))
                    + " p99_ms=" + Fmt.ms(h.getValueAtPercentile(99)) + " max_ms=" + Fmt.ms(h.getMaxValue())
                    + " rows_per_page=" + Fmt.two((double) found / searches) + " examined_per_page="
                    + Fmt.two((double) examined / searches) + " incomplete_pages=" + incomplete
                    + " example=" + k.query().apply(new SplittableRandom(7)).replace(' ', '+'));
            result.append(" p99_ms_").append(k.name()).append('=').append(Fmt.ms(h.getValueAtPercentile(99)));
        }
        if (!empty.isEmpty()) {
            Fmt.line("FAIL no search of " + empty + " found a row: the preload does not hold what they look for");
        }
        boolean pass = worst < target && empty.isEmpty();
        result.append(" worst_p99_ms=").append(Fmt.two(worst)).append(" worst=").append(worstName)
                .append(" cases_finding_nothing=").append(empty.size())
                .append(" target_ms=").append(target).append(" pass=").append(pass);
        return new Outcome(result.toString(), pass);
    }

    private static String dayRange(Instant now, SplittableRandom r) {
        Instant from = now.minus(1 + r.nextInt(DAYS - 2), ChronoUnit.DAYS).truncatedTo(ChronoUnit.DAYS);
        return "after:" + from + " before:" + from.plus(1, ChronoUnit.DAYS);
    }

    private static String hourRange(Instant now, SplittableRandom r) {
        Instant from = now.minus(1 + r.nextInt(DAYS * 24 - 2), ChronoUnit.HOURS).truncatedTo(ChronoUnit.HOURS);
        return "after:" + from + " before:" + from.plus(1, ChronoUnit.HOURS);
    }

    static String md5(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The events, by one set-based INSERT per {@value #CHUNK} rows from the database's row generator. */
    static void preload(BenchContext ctx, int rows) {
        long started = System.nanoTime();
        for (long from = 1; from <= rows; from += CHUNK) {
            long to = Math.min(rows, from + CHUNK - 1);
            ctx.db.execute(insertSql(ctx.db.kind(), ctx.outbox(), from, to, rows));
        }
        Fmt.line("PRELOAD rows=" + rows + " seconds=" + Fmt.two((System.nanoTime() - started) / 1e9));
    }

    /** The INSERT of rows {@code from..to} of {@code rows}; package-private for its test. */
    static String insertSql(String kind, String table, long from, long to, long rows) {
        boolean pg = kind.equals("postgres");
        String n = pg ? "n" : "seq";
        long orders = Math.max(1, rows / EVENTS_PER_ORDER);
        String type = choice(n, TYPES);
        String topic = choice(n, TOPICS);
        String status = "CASE " + n + " % 1000 WHEN 0 THEN 5 WHEN 1 THEN 3 WHEN 2 THEN 0 ELSE 2 END";
        String retries = "CASE " + n + " % 1000 WHEN 0 THEN 5 WHEN 1 THEN 3 ELSE 0 END";
        String error = "CASE " + n + " % 1000 WHEN 0 THEN " + concat(pg, "'connection refused: broker-'", "(" + n + " % 7)")
                + " WHEN 1 THEN 'timeout after 30000 ms' ELSE NULL END";
        long spanSeconds = DAYS * 86_400L;
        String age = "((" + rows + " - " + n + ")" + (pg ? "::bigint" : "") + " * " + spanSeconds + " / " + rows + ")";
        String time = pg ? "(now() - make_interval(secs => " + age + "))" : "(UTC_TIMESTAMP(3) - INTERVAL " + age + " SECOND)";
        String published = "CASE " + n + " % 1000 WHEN 0 THEN NULL WHEN 1 THEN NULL WHEN 2 THEN NULL ELSE " + time + " END";
        String payload = concat(pg, "'{\"orderId\":\"ORD-'", "(" + n + " % " + orders + ")", "'\",\"seq\":'", n,
                "',\"total\":36.59,\"currency\":\"EUR\"}'");
        String columns = "event_no, aggregate_type, aggregate_id, event_type, event_version, event_source,"
                + " publish_channel, topic, event_payload, trace_id, publish_status, retry_count, max_retry_count,"
                + " fail_reason, version, deleted, published_time, create_time, update_time";
        String values = concat(pg, "'S-'", n) + ", 'ORDER', " + concat(pg, "'ORD-'", "(" + n + " % " + orders + ")")
                + ", " + type + ", 1, 'bench', 'MQ', " + topic + ", " + (pg ? "(" + payload + ")::json" : payload)
                + ", MD5(" + (pg ? n + "::text" : n) + "), " + status + ", " + retries + ", 5, " + error + ", 0, 0, "
                + published + ", " + time + ", " + time;
        return "INSERT INTO " + table + " (" + columns + ") SELECT " + values
                + (pg ? " FROM generate_series(" + from + ", " + to + ") AS n" : " FROM seq_" + from + "_to_" + to);
    }

    private static String choice(String n, String[] values) {
        StringBuilder b = new StringBuilder("CASE " + n + " % " + values.length);
        for (int i = 0; i < values.length; i++) {
            b.append(" WHEN ").append(i).append(" THEN '").append(values[i]).append('\'');
        }
        return b.append(" END").toString();
    }

    private static String concat(boolean pg, String... parts) {
        return pg ? String.join(" || ", parts) : "CONCAT(" + String.join(", ", parts) + ")";
    }
}
