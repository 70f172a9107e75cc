package dev.postbox.bench;

import dev.postbox.server.RelayServer;
import dev.postbox.server.config.ConfigLoader;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * {@code server}: postbox-server's drain against postbox-core's embedded relay, and its scale-out over replica
 * processes. Two sources at once, a PostgreSQL schema and a MariaDB database, each filled with {@code --events}
 * pending events (TRUNCATE and {@link Preload} before every drain), drained to the local NATS JetStream (a fresh
 * stream per drain, {@link NatsCapture}):
 * <ol>
 *   <li>warm-up ({@code --warmup} per source, not measured): the embedded relays, so that neither measured drain pays
 *       for this JVM's JIT alone;</li>
 *   <li>{@code CEILING}, embedded: one postbox-core relay per source (as {@link DrainBench} builds them, batch
 *       {@code --batch}) on one shared {@code NatsPublisher} ({@link DrainRelays}): the same work with nothing of the server's around it;</li>
 *   <li>server: {@link RelayServer} in this JVM, started from the YAML file the bench writes for the run (loaded by
 *       {@link ConfigLoader}, the path a deployed server takes): one relay per source, routes on channel MQ to one
 *       NATS destination behind its {@code --max-in-flight} bound;</li>
 *   <li>replicas ({@code --replicas 1,2,3}, {@code --replica-events} per source): the same file run by that many
 *       {@code postbox-server run FILE} processes ({@link ServerReplica}) started at once, timed from their launch
 *       (JVM start included; {@code replicasN_start_ms} says how much of it that was, {@code replicasN_running_eps} is the
 *       rate once all were running).</li>
 * </ol>
 * A drain ends when every event of both sources arrived and both outboxes have every row PUBLISHED
 * ({@link SourcesDrain}); per-source rates use the moment each source was done. After each drain the bench verifies
 * that nothing was lost and order held: every row PUBLISHED, every event received, the stream holding them all, no
 * event's first delivery after a later one of its aggregate; a miss fails the run (exit 1). Duplicates are counted.
 */
final class ServerBench implements Command {

    static final String OFF = "off";
    static final int MAX_REPLICAS = 8;
    private static final long STALL_MS = 60_000;

    @Override
    public String name() {
        return "server";
    }

    @Override
    public Map<String, String> defaults() {
        Map<String, String> d = new LinkedHashMap<>();
        d.put("events", "200000");
        d.put("replicas", "1,2,3");
        d.put("replica-events", "100000");
        d.put("warmup", "20000");
        d.put("aggregates", "1000");
        d.put("batch", "500");
        d.put("max-in-flight", String.valueOf(ConfigLoader.DEFAULT_MAX_IN_FLIGHT)); // the server's own default
        d.put("timeout", "600");
        return d;
    }

    @Override
    public void validate(Options o) {
        o.positiveInt("events");
        replicas(o);
        o.positiveInt("replica-events");
        o.nonNegativeInt("warmup");
        o.positiveInt("aggregates");
        if (o.positiveInt("batch") > dev.postbox.relay.RelayDefaults.MAX_BATCH_SIZE) {
            throw new UsageException("option --batch must be at most " + dev.postbox.relay.RelayDefaults.MAX_BATCH_SIZE
                    + " (was " + o.positiveInt("batch") + ")");
        }
        if (o.positiveInt("max-in-flight") > 100_000) {
            throw new UsageException("option --max-in-flight must be at most 100000 (was " + o.positiveInt("max-in-flight") + ")");
        }
        o.positiveInt("timeout");
    }

    /** The replica counts of {@code --replicas}, in order; empty for {@code off}. */
    static List<Integer> replicas(Options o) {
        return o.string("replicas").equals(OFF) ? List.of() : o.positiveIntList("replicas", MAX_REPLICAS);
    }

    @FunctionalInterface
    private interface Starter {
        DrainRelays start(long startNanos) throws Exception;
    }

    /** One verified drain of {@code perSource} events from each source. */
    record Drain(String phase, int perSource, SourcesDrain.Result timing, List<Receiver> receivers, long cpuNanos,
                 long lost, boolean ok) {

        long events() {
            return (long) perSource * receivers.size();
        }

        double eps() {
            return timing.complete() ? events() / timing.seconds() : 0;
        }

        double sourceEps(int i) {
            double s = timing.sourceSeconds()[i];
            return Double.isNaN(s) ? 0 : perSource / s;
        }

        String cpuPer1k() {
            return CpuClock.per1k(cpuNanos, events());
        }

        long duplicates() {
            return receivers.stream().mapToLong(Receiver::duplicates).sum();
        }

        long orderViolations() {
            return receivers.stream().mapToLong(Receiver::orderViolations).sum();
        }

        /** {@code <prefix>eps=… <prefix>pg_eps=… <prefix>mariadb_eps=…} with the sources' names. */
        String rates(String prefix, List<ServerSources.Source> sources) {
            StringBuilder b = new StringBuilder(prefix + "eps=" + Fmt.rate(eps()));
            for (int i = 0; i < sources.size(); i++) {
                b.append(' ').append(prefix).append(sources.get(i).name()).append("_eps=").append(Fmt.rate(sourceEps(i)));
            }
            return b.toString();
        }
    }

    @Override
    public Outcome run(Options o) throws Exception {
        Path dir = Files.createTempDirectory("postbox-bench-server-");
        boolean keep = Boolean.getBoolean("postbox.bench.server.keep");
        Thread deleteOnExit = new Thread(() -> delete(dir), "bench-server-dir-delete-on-exit");
        if (!keep) {
            Runtime.getRuntime().addShutdownHook(deleteOnExit);
        }
        try (ServerSources sources = ServerSources.open(); NatsCapture nats = new NatsCapture()) {
            return new Run(o, sources, nats, dir).execute();
        } finally {
            if (keep) {
                System.err.println("kept " + dir + " (the server's YAML and every replica's log)");
            } else {
                Runtime.getRuntime().removeShutdownHook(deleteOnExit);
                delete(dir);
            }
        }
    }

    private static void delete(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (java.io.IOException e) {
            System.err.println("WARN could not delete " + dir + ": " + e);
        }
    }

    /** One run's phases on its sources and destination. */
    private static final class Run {
        private final Options o;
        private final ServerSources sources;
        private final NatsCapture nats;
        private final Path dir;
        private final Path config;
        private final int batch;
        private final List<Drain> drains = new ArrayList<>();

        Run(Options o, ServerSources sources, NatsCapture nats, Path dir) throws Exception {
            this.o = o;
            this.sources = sources;
            this.nats = nats;
            this.dir = dir;
            this.batch = o.positiveInt("batch");
            this.config = sources.writeConfig(dir, NatsCapture.URL, nats.subjectPrefix(), batch, o.positiveInt("max-in-flight"));
        }

        Outcome execute() throws Exception {
            sources.describe().forEach(Fmt::line);
            Fmt.line("DESTINATION nats " + NatsCapture.URL + " subject=" + nats.subject()
                    + " (a fresh file-storage stream per drain; the bench reads every message back)");
            new ConfigLoader().load(config); // a bad file fails here, before any drain
            for (String line : Files.readAllLines(config)) {
                Fmt.line("CONFIG " + line);
            }
            Fmt.line("NOTE cpu_ms_per_1k: embedded and server = this JVM's process CPU over the drain per 1,000 events"
                    + " (the relays and the bench's NATS reader; not the databases, not NATS); replicasN = the replica"
                    + " processes' CPU from their launch (JVM start included), the bench's reader not counted");

            int warmup = o.nonNegativeInt("warmup");
            if (warmup > 0) {
                Drain w = drain("warmup", warmup, this::embedded);
                Fmt.line("WARMUP " + w.rates("", sources.sources) + " (embedded relays, not measured)");
            }
            int events = o.positiveInt("events");
            Drain embedded = drain("embedded", events, this::embedded);
            Fmt.line("CEILING embedded " + embedded.rates("", sources.sources) + " cpu_ms_per_1k=" + embedded.cpuPer1k()
                    + " (one postbox-core relay per source, batch " + batch + ", one NatsPublisher, no server around them)");
            Drain server = drain("server", events, start -> DrainRelays.server(config));
            Fmt.line("SERVER " + server.rates("", sources.sources) + " cpu_ms_per_1k=" + server.cpuPer1k()
                    + " ratio=" + Fmt.two(server.eps() / embedded.eps()) + " (RelayServer in this JVM, from " + config.getFileName() + ")");

            StringBuilder replicaKeys = new StringBuilder();
            List<Integer> counts = replicas(o);
            if (!counts.isEmpty()) {
                int perSource = o.positiveInt("replica-events");
                replicaKeys.append(" replica_events=").append(perSource);
                Map<Integer, double[]> rates = new LinkedHashMap<>(); // replicas -> {eps, running_eps}
                for (int n : counts) {
                    ServerReplicas[] started = new ServerReplicas[1];
                    Drain d = drain("replicas" + n, perSource, start -> {
                        started[0] = ServerReplicas.start(n, config, dir, start);
                        return DrainRelays.replicas(started[0]);
                    });
                    long startMs = started[0].allRunningMillis();
                    double running = d.timing().complete() ? started[0].runningEps(d.events(), d.timing().seconds()) : Double.NaN;
                    rates.put(n, new double[] {d.eps(), running});
                    Fmt.line("REPLICAS " + n + " " + d.rates("", sources.sources) + " start_ms=" + startMs
                            + " running_eps=" + rateOrNa(running) + " cpu_ms_per_1k=" + d.cpuPer1k()
                            + " (separate postbox-server processes timed from their launch; running_eps: the events"
                            + " after all were running over the time since)");
                    String key = " replicas" + n + "_";
                    replicaKeys.append(key).append("eps=").append(Fmt.rate(d.eps()))
                            .append(key).append("running_eps=").append(rateOrNa(running))
                            .append(key).append("start_ms=").append(startMs)
                            .append(key).append("cpu_ms_per_1k=").append(d.cpuPer1k());
                }
                double[] one = rates.get(1);
                if (one != null) {
                    rates.forEach((n, r) -> {
                        if (n != 1) {
                            replicaKeys.append(" replicas").append(n).append("_vs_1=").append(ratioOrNa(r[0], one[0]))
                                    .append(" replicas").append(n).append("_running_vs_1=").append(ratioOrNa(r[1], one[1]));
                        }
                    });
                }
            }

            boolean ok = drains.stream().allMatch(Drain::ok);
            long lost = drains.stream().mapToLong(Drain::lost).sum();
            long reordered = drains.stream().mapToLong(Drain::orderViolations).sum();
            if (reordered > 0) {
                Fmt.line("WARN " + reordered + " events arrived after a later event of their aggregate (order_violations;"
                        + " the drains: " + String.join(", ", drains.stream().filter(d -> d.orderViolations() > 0)
                        .map(Drain::phase).toList()) + "): the run fails");
            }
            String result = "RESULT scenario=server events=" + events + " batch=" + batch
                    + " max_in_flight=" + o.positiveInt("max-in-flight")
                    + " " + server.rates("server_", sources.sources) + " " + embedded.rates("embedded_", sources.sources)
                    + " ratio=" + Fmt.two(server.eps() / embedded.eps())
                    + " cpu_ms_per_1k=" + server.cpuPer1k() + " cpu_ms_per_1k_embedded=" + embedded.cpuPer1k()
                    + replicaKeys
                    + " lost=" + lost + " duplicates=" + drains.stream().mapToLong(Drain::duplicates).sum()
                    + " order_violations=" + reordered;
            return new Outcome(result, ok);
        }

        private static String rateOrNa(double eps) {
            return Double.isNaN(eps) ? "n/a" : Fmt.rate(eps);
        }

        private static String ratioOrNa(double a, double b) {
            return Double.isNaN(a) || Double.isNaN(b) || b == 0 ? "n/a" : Fmt.two(a / b);
        }

        /** Refills both sources with {@code perSource} events each, runs {@code starter}'s relays until drained, verifies. */
        private Drain drain(String phase, int perSource, Starter starter) throws Exception {
            sources.refill(perSource, o.positiveInt("aggregates"));
            List<Receiver> receivers = new ArrayList<>();
            for (int i = 0; i < sources.sources.size(); i++) {
                receivers.add(new Receiver());
            }
            nats.begin(receivers, perSource);
            Fmt.line("DRAIN " + phase + " " + perSource + " events per source");
            SourcesDrain.Result timing;
            long cpuNanos;
            long streamMessages;
            try {
                long start = System.nanoTime();
                try (DrainRelays relays = starter.start(start)) {
                    timing = SourcesDrain.await(sources.sources, receivers, perSource, start, STALL_MS,
                            o.positiveInt("timeout") * 1000L, relays::problem);
                    cpuNanos = relays.cpuNanos();
                }
                streamMessages = nats.streamMessages();
            } finally {
                nats.end();
            }
            Drain d = verify(phase, perSource, timing, receivers, cpuNanos, streamMessages);
            drains.add(d);
            return d;
        }

        private DrainRelays embedded(long startNanos) {
            return DrainRelays.embedded(sources, NatsCapture.URL, nats.subjectPrefix(), batch);
        }

        private Drain verify(String phase, int perSource, SourcesDrain.Result timing, List<Receiver> receivers,
                             long cpuNanos, long streamMessages) {
            // every row PUBLISHED, every event received and stored, each aggregate's first deliveries in order
            boolean ok = timing.complete() && streamMessages >= (long) perSource * receivers.size();
            long lost = 0;
            StringBuilder line = new StringBuilder("VERIFY " + phase);
            for (int i = 0; i < sources.sources.size(); i++) {
                ServerSources.Source s = sources.sources.get(i);
                Receiver r = receivers.get(i);
                long published = s.published();
                long unpublished = s.unpublished();
                lost += Math.max(perSource - r.distinct(), unpublished);
                ok &= published == perSource && unpublished == 0 && r.distinct() >= perSource && r.orderViolations() == 0;
                line.append(' ').append(s.name()).append(": published_rows=").append(published).append(" unpublished_rows=")
                        .append(unpublished).append(" received=").append(r.distinct()).append(" duplicates=")
                        .append(r.duplicates()).append(" order_violations=").append(r.orderViolations())
                        .append(" retried_rows=").append(s.retried()).append(';');
            }
            line.append(" stream_messages=").append(streamMessages).append(" ok=").append(ok);
            Fmt.line(line.toString());
            return new Drain(phase, perSource, timing, receivers, cpuNanos, lost, ok);
        }
    }
}
