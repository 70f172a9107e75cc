package dev.postbox.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The processes of a chaos run, all on loopback: the sink, the relays (each restart is a new incarnation
 * with its own {@code locked_by}, as a restarted pod would be) and the producers. Not thread-safe: the
 * bench's fault loop drives it.
 */
final class ChaosCluster implements AutoCloseable {

    private static final long READY_TIMEOUT_MS = 60_000;
    private static final long STOP_GRACE_MS = 20_000;

    private final Path dir;
    private final String kind;
    private final String url;
    private final String user;
    private final int sinkPort;
    private final int batch;
    private final int leaseMs;
    private final ChildProcess[] relays;
    private final String[] relayIds;
    private final int[] incarnations;
    private final List<ChildProcess> producers = new ArrayList<>();
    private ChildProcess sink;
    /** Every process started, restarted ones included, for their CPU time. */
    private final List<ChildProcess> started = new CopyOnWriteArrayList<>();
    /** Signs the relays' requests (as production webhooks are); the sink does not need to check them. */
    private final String secret = "chaos-" + Long.toHexString(java.util.concurrent.ThreadLocalRandom.current().nextLong());

    ChaosCluster(Path dir, BenchDatabase db, int relays, int batch, int leaseMs) throws IOException {
        this.dir = dir;
        this.kind = db.kind();
        this.url = db.url();
        this.user = db.user();
        this.sinkPort = PrivateServer.freePort();
        this.batch = batch;
        this.leaseMs = leaseMs;
        this.relays = new ChildProcess[relays];
        this.relayIds = new String[relays];
        this.incarnations = new int[relays];
    }

    private ChildProcess track(ChildProcess p) {
        started.add(p);
        return p;
    }

    /** CPU time of every process this cluster started (killed and restarted ones included), in nanoseconds. */
    long childCpuNanos() {
        return started.stream().mapToLong(ChildProcess::cpuNanos).sum();
    }

    Path deliveryLog() {
        return dir.resolve("deliveries.log");
    }

    String sinkUrl() {
        return "http://127.0.0.1:" + sinkPort + "/events";
    }

    /** Starts the sink (again, after an outage) on its port, appending to the same log; waits until it serves. */
    void startSink() throws IOException, InterruptedException {
        sink = track(ChildProcess.start("sink", ChaosSink.class, List.of("--port", String.valueOf(sinkPort),
                "--log", deliveryLog().toString()), dir.resolve("sink.log")));
        if (!sink.awaitReady(READY_TIMEOUT_MS)) {
            throw new IllegalStateException("the chaos sink did not start; see " + dir.resolve("sink.log"));
        }
    }

    /** The sink outage: {@code kill -9} of the sink process. */
    void killSink() throws InterruptedException {
        sink.kill();
    }

    boolean sinkAlive() {
        return sink != null && sink.alive();
    }

    int relayCount() {
        return relays.length;
    }

    /** Starts relay {@code i}'s next incarnation without waiting for it (a restart takes a JVM start). */
    String startRelay(int i) throws IOException {
        String id = "relay-" + i + "-" + (++incarnations[i]);
        relayIds[i] = id;
        relays[i] = track(ChildProcess.start(id, ChaosRelay.class, List.of("--url", url, "--user", user, "--dialect", kind,
                "--instance", id, "--batch", String.valueOf(batch), "--lease-ms", String.valueOf(leaseMs),
                "--send-timeout-ms", String.valueOf(leaseMs / 2), "--sink", sinkUrl(), "--secret", secret), dir.resolve("relay-" + i + ".log")));
        return id;
    }

    boolean awaitRelaysReady() throws InterruptedException {
        for (ChildProcess r : relays) {
            if (!r.awaitReady(READY_TIMEOUT_MS)) {
                return false;
            }
        }
        return true;
    }

    /** {@code kill -9} of relay {@code i}; returns the killed incarnation's {@code locked_by}. */
    String killRelay(int i) throws InterruptedException {
        relays[i].kill();
        return relayIds[i];
    }

    /** Whether relay {@code i}'s current incarnation is up (printed READY) and still running. */
    boolean relayReady(int i) {
        return relays[i].ready() && relays[i].alive();
    }

    /** Whether relay {@code i} exited without being killed (e.g. started while the database was down). */
    boolean relayDied(int i) {
        return !relays[i].alive();
    }

    int relayExitCode(int i) {
        return relays[i].exitCode();
    }

    /** Starts one producer process per entry of {@code skewsMs} and waits until all are ready. */
    void startProducers(List<Long> skewsMs, int aggregates, int seconds, int rate, int rollbackPct, long seed)
            throws IOException, InterruptedException {
        for (int p = 1; p <= skewsMs.size(); p++) {
            producers.add(track(ChildProcess.start("producer-" + p, ChaosProducer.class, List.of("--url", url, "--user", user,
                    "--dialect", kind, "--producer", String.valueOf(p), "--skew-ms", String.valueOf(skewsMs.get(p - 1)),
                    "--aggregates", String.valueOf(aggregates), "--seconds", String.valueOf(seconds),
                    "--rate", String.valueOf(rate), "--rollback-pct", String.valueOf(rollbackPct),
                    "--seed", String.valueOf(seed)), dir.resolve("producer-" + p + ".log"))));
        }
        for (ChildProcess p : producers) {
            if (!p.awaitReady(READY_TIMEOUT_MS)) {
                throw new IllegalStateException(p.name + " did not start; see " + dir.resolve(p.name + ".log"));
            }
        }
    }

    boolean producersRunning() {
        return producers.stream().anyMatch(ChildProcess::alive);
    }

    /** The producers' REPORT lines. */
    List<String> producerReports() {
        List<String> out = new ArrayList<>();
        producers.forEach(p -> out.addAll(p.reports()));
        return out;
    }

    /** Stops the relays (SIGTERM: each gives back its leases) and then the sink. */
    void stopRelaysAndSink() {
        for (ChildProcess r : relays) {
            if (r != null) {
                r.stop(STOP_GRACE_MS);
            }
        }
        if (sink != null) {
            sink.stop(STOP_GRACE_MS);
        }
    }

    @Override
    public void close() {
        producers.forEach(p -> p.stop(STOP_GRACE_MS));
        stopRelaysAndSink();
    }
}
