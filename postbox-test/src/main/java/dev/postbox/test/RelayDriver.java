package dev.postbox.test;

import dev.postbox.Postbox;
import dev.postbox.message.MessageWorker;
import dev.postbox.message.MessageWorkerBuilder;
import dev.postbox.message.WorkerCycle;
import dev.postbox.message.WorkerListener;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.relay.Cycle;
import dev.postbox.relay.Relay;
import dev.postbox.relay.RelayBuilder;
import dev.postbox.relay.RelayListener;
import dev.postbox.spi.Publisher;

import javax.sql.DataSource;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Runs a relay (and optionally a message-event worker) on the test's thread, one cycle at a time, so a test waits
 * for nothing: {@link #runOnce()} claims, publishes and records once; {@link #drain()} cycles until nothing is
 * claimable; {@link #drainAdvancingClock()} also moves the {@link TestClock} to the next retry time or lease
 * expiry whenever nothing is claimable now, until no event is left waiting for time. Every drain stops after
 * {@code maxCycles} cycles with an {@link AssertionError} (an event that never settles fails the test instead of
 * hanging it). Each call reports the {@code event_no}s of what happened ({@link Report}).
 *
 * <pre>{@code
 * TestClock clock = TestClock.at(Instant.parse("2030-01-01T00:00:00Z"));
 * Postbox postbox = Postbox.builder(dataSource).clock(clock).build();
 * RecordingPublisher publisher = new RecordingPublisher().failNext(1);
 * try (RelayDriver driver = RelayDriver.builder(postbox, dataSource, publisher).clock(clock).build()) {
 *     ...write events...
 *     RelayDriver.Report r = driver.drainAdvancingClock();   // fails once, retried after the backoff
 * }
 * }</pre>
 *
 * The driver builds the relay itself ({@code postbox.relay(publisher)}, then {@link Builder#relay}'s settings)
 * and sets what a driven relay needs: one batch in flight, no LISTEN connection, no clock-skew check (the test
 * clock is meant to be far from the database's), the test's data source as the relay's pool (wrapped, so that a
 * crash injected by a {@link RecordingPublisher} can cut it off), and a listener that collects the
 * {@code event_no}s (the one given to {@link Builder#listener} is called too). After an injected crash the driver
 * abandons the crashed relay, as a dead process is, and builds a new one with a new instance id: the crashed
 * events stay PUBLISHING until their lease expires by the test clock. Not thread-safe: one test thread drives.
 */
public final class RelayDriver implements AutoCloseable {

    /** Default bound on the cycles of one drain. */
    public static final int DEFAULT_MAX_CYCLES = 1000;

    private final Postbox postbox;
    private final Builder config;
    private final Collector collector = new Collector();
    private final DueTimes dueTimes;
    private final MessageWorker worker;
    private CutOffDataSource relayPool;
    private Relay relay;
    private int generation = 1;

    private RelayDriver(Builder b) {
        this.postbox = b.postbox;
        this.config = b;
        this.dueTimes = new DueTimes(postbox, b.dataSource);
        this.relay = newRelay();
        this.worker = b.worker == null ? null : newWorker(b.worker);
        if (b.publisher instanceof RecordingPublisher recording) {
            recording.crashHook(this::crash);
        }
    }

    /**
     * Starts configuring a driver for a relay of {@code postbox} publishing through {@code publisher}, on
     * {@code dataSource} (the test's database, which {@code postbox} was built on).
     */
    public static Builder builder(Postbox postbox, DataSource dataSource, Publisher publisher) {
        return new Builder(Objects.requireNonNull(postbox, "postbox"), Objects.requireNonNull(dataSource, "dataSource"),
                Objects.requireNonNull(publisher, "publisher"));
    }

    /** The relay being driven (a new one after each injected crash). */
    public Relay relay() {
        return relay;
    }

    /** The message-event worker being driven, or null when none was configured. */
    public MessageWorker worker() {
        return worker;
    }

    /** One relay cycle (claim, publish, record), then one worker cycle if there is a worker. */
    public Report runOnce() {
        collector.clear();
        step();
        return collector.report(1, Duration.ZERO);
    }

    /**
     * Cycles until a cycle claims nothing (events waiting for a retry time or a lease in the future stay as they
     * are); fails after {@code maxCycles} cycles.
     */
    public Report drain() {
        return drain(false);
    }

    /**
     * Cycles until nothing is claimable, moving the test clock forward to the earliest retry time (outbox or, with a
     * worker, message events) or expired lease whenever nothing is claimable now; ends when no event waits for time
     * any more. Fails after {@code maxCycles} cycles, e.g. when an event fails for ever with a retry policy that never
     * gives up.
     *
     * @throws IllegalStateException when the driver was built without {@link Builder#clock}
     */
    public Report drainAdvancingClock() {
        if (config.clock == null) {
            throw new IllegalStateException("clock: drainAdvancingClock() needs the TestClock the Postbox was built with;"
                    + " set it with RelayDriver.builder(...).clock(clock)");
        }
        return drain(true);
    }

    private Report drain(boolean advance) {
        Instant startedAt = config.clock == null ? null : config.clock.instant();
        collector.clear();
        int cycles = 0;
        while (true) {
            if (cycles >= config.maxCycles) {
                throw new AssertionError("RelayDriver: still busy after maxCycles=" + config.maxCycles + " cycles ("
                        + collector.report(cycles, Duration.ZERO) + "): an event that is published or handled again"
                        + " and again never settles");
            }
            cycles++;
            if (step()) {
                continue;
            }
            if (advance) {
                Instant next = dueTimes.next(config.clock.instant(), worker != null);
                if (next != null) {
                    config.clock.advanceTo(next);
                    continue;
                }
            }
            Duration moved = startedAt == null ? Duration.ZERO : Duration.between(startedAt, config.clock.instant());
            return collector.report(cycles, moved);
        }
    }

    /** One relay cycle and one worker cycle; true if either did something. */
    private boolean step() {
        boolean busy;
        try {
            Cycle c = relay.runOnce();
            busy = c.claimed() > 0;
        } catch (RuntimeException e) {
            if (!relayPool.isCut()) {
                throw e;
            }
            restart(); // the injected crash: the cycle ends unrecorded, its events stay leased
            busy = true;
        }
        if (worker != null) {
            WorkerCycle w = worker.runOnce();
            busy |= w.claimed() > 0 || w.recovered() > 0;
        }
        return busy;
    }

    /** Called by the RecordingPublisher on the relay's send thread once the crashed call's events are delivered. */
    private void crash(List<OutboxRecord> delivered) {
        delivered.forEach(r -> collector.crashed(r.eventNo()));
        relayPool.cut();
    }

    /** The crashed relay is abandoned (its database already cut off, so closing it writes nothing); a new one starts. */
    private void restart() {
        Relay crashed = relay;
        generation++;
        relay = newRelay();
        crashed.close();
        if (config.publisher instanceof RecordingPublisher recording) {
            recording.restarted();
        }
    }

    private Relay newRelay() {
        relayPool = new CutOffDataSource(config.dataSource);
        RelayBuilder b = postbox.relay(config.publisher);
        config.relay.accept(b);
        return b.instanceId(generation == 1 ? config.instanceId : config.instanceId + "-" + generation)
                .inFlightBatches(1)
                .listenForNotifications(false)
                .clockSkewCheck(false)
                .dataSource(relayPool)
                .listener(Collector.both(collector, config.listener))
                .build();
    }

    private MessageWorker newWorker(Consumer<MessageWorkerBuilder> configure) {
        MessageWorkerBuilder b = postbox.worker();
        configure.accept(b);
        return b.instanceId(config.instanceId + "-worker")
                .threads(1)
                .dataSource(config.dataSource)
                .listener(Collector.both(collector, config.workerListener))
                .build();
    }

    /** Closes the relay and the worker (neither was started, so nothing is left running). */
    @Override
    public void close() {
        try {
            relay.close();
        } finally {
            if (worker != null) {
                worker.close();
            }
        }
    }

    /**
     * What a {@link #runOnce()} or a drain did, as {@code event_no}s in the order it happened (an event published after
     * two failures is in {@code failed} twice and in {@code published} once).
     *
     * @param cycles            relay cycles run (each followed by a worker cycle when there is a worker)
     * @param published         outbox events the relay recorded PUBLISHED
     * @param failed            outbox events recorded FAILED (each failure once)
     * @param dead              outbox events recorded DEAD
     * @param takenOver         outbox events claimed after the lease of a relay that stopped (crashed) expired
     * @param crashed           outbox events delivered by a call after which the relay crashed (injected), unrecorded
     * @param messagesSucceeded message events whose handler succeeded
     * @param messagesFailed    message events recorded FAILED, to be retried
     * @param messagesDead      message events recorded DEAD or CANCELLED after their last retry
     * @param clockAdvanced     how far a drain moved the test clock (zero without {@link #drainAdvancingClock()})
     */
    public record Report(int cycles, List<String> published, List<String> failed, List<String> dead,
                         List<String> takenOver, List<String> crashed, List<String> messagesSucceeded,
                         List<String> messagesFailed, List<String> messagesDead, Duration clockAdvanced) {

        public Report {
            published = List.copyOf(published);
            failed = List.copyOf(failed);
            dead = List.copyOf(dead);
            takenOver = List.copyOf(takenOver);
            crashed = List.copyOf(crashed);
            messagesSucceeded = List.copyOf(messagesSucceeded);
            messagesFailed = List.copyOf(messagesFailed);
            messagesDead = List.copyOf(messagesDead);
            Objects.requireNonNull(clockAdvanced, "clockAdvanced");
        }

        @Override
        public String toString() {
            StringBuilder s = new StringBuilder("cycles=").append(cycles).append(", published=").append(published);
            append(s, "failed", failed);
            append(s, "dead", dead);
            append(s, "takenOver", takenOver);
            append(s, "crashed", crashed);
            append(s, "messagesSucceeded", messagesSucceeded);
            append(s, "messagesFailed", messagesFailed);
            append(s, "messagesDead", messagesDead);
            if (!clockAdvanced.isZero()) {
                s.append(", clockAdvanced=").append(clockAdvanced);
            }
            return s.toString();
        }

        private static void append(StringBuilder s, String name, List<String> list) {
            if (!list.isEmpty()) {
                s.append(", ").append(name).append('=').append(list);
            }
        }
    }

    /** Configures a {@link RelayDriver}; not thread-safe. */
    public static final class Builder {
        private final Postbox postbox;
        private final DataSource dataSource;
        private final Publisher publisher;
        private TestClock clock;
        private Consumer<RelayBuilder> relay = b -> { };
        private Consumer<MessageWorkerBuilder> worker;
        private RelayListener listener = RelayListener.NOOP;
        private WorkerListener workerListener = WorkerListener.NOOP;
        private int maxCycles = DEFAULT_MAX_CYCLES;
        private String instanceId = "relay-driver";

        private Builder(Postbox postbox, DataSource dataSource, Publisher publisher) {
            this.postbox = postbox;
            this.dataSource = dataSource;
            this.publisher = publisher;
        }

        /** The test clock the Postbox was built with; needed by {@link #drainAdvancingClock()}. Default: none. */
        public Builder clock(TestClock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Settings of the relay (batch size, retry policy, lease, order, ...), applied before the driver's own (see the
         * class comment), which win. Default: the relay's defaults.
         */
        public Builder relay(Consumer<RelayBuilder> settings) {
            this.relay = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /**
         * Also drives a message-event worker configured by {@code handlers} (at least one
         * {@code handler(eventType, handler)}); its thread count, data source and listener are the driver's.
         * Default: no worker.
         */
        public Builder worker(Consumer<MessageWorkerBuilder> handlers) {
            this.worker = Objects.requireNonNull(handlers, "handlers");
            return this;
        }

        /** A relay listener called besides the driver's own; default none. */
        public Builder listener(RelayListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /** A worker listener called besides the driver's own; default none. */
        public Builder workerListener(WorkerListener listener) {
            this.workerListener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /** Most cycles one drain may run before it fails; 1..1,000,000, default {@value RelayDriver#DEFAULT_MAX_CYCLES}. */
        public Builder maxCycles(int maxCycles) {
            if (maxCycles < 1 || maxCycles > 1_000_000) {
                throw new IllegalArgumentException("maxCycles must be between 1 and 1000000 (was " + maxCycles + ")");
            }
            this.maxCycles = maxCycles;
            return this;
        }

        /** The relay's instance id ({@code locked_by}); relays replacing a crashed one get {@code -2}, {@code -3}, ... */
        public Builder instanceId(String instanceId) {
            this.instanceId = Objects.requireNonNull(instanceId, "instanceId");
            return this;
        }

        /** Builds the relay (and worker), validating their settings; neither is started. */
        public RelayDriver build() {
            return new RelayDriver(this);
        }
    }
}
