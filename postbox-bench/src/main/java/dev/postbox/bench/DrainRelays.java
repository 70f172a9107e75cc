package dev.postbox.bench;

import dev.postbox.nats.NatsPublisher;
import dev.postbox.relay.Relay;
import dev.postbox.server.RelayServer;
import dev.postbox.server.config.ConfigLoader;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What runs the relays of one drain of {@code scripts/bench server}, started at the drain's start and closed at its
 * end: the embedded relays, postbox-server in this JVM, or replica processes.
 */
interface DrainRelays extends AutoCloseable {

    /** CPU nanoseconds the relays' side spent since the start (-1: unknown). */
    long cpuNanos();

    /** A reason to give up now (a process that died), or null; {@code delivered}: the events arrived so far. */
    default String problem(long delivered) {
        return null;
    }

    /** Stops the relays; never throws. */
    @Override
    void close();

    /**
     * One postbox-core relay per source (batch {@code batch}, every other setting Postbox's default, as an application
     * embeds it) on one shared NatsPublisher under {@code subjectPrefix}; prints their PROFILE at close.
     */
    static DrainRelays embedded(ServerSources sources, String natsUrl, String subjectPrefix, int batch) {
        CpuClock cpu = CpuClock.start();
        RelayTimers timers = new RelayTimers();
        NatsPublisher publisher = NatsPublisher.builder().servers(natsUrl).subjectPrefix(subjectPrefix)
                .connectionName("postbox-bench-embedded").build();
        List<Relay> relays = new ArrayList<>();
        DrainRelays running = new DrainRelays() {
            @Override
            public long cpuNanos() {
                return cpu.elapsedNanos();
            }

            @Override
            public void close() {
                relays.forEach(Relay::close);
                publisher.close();
                Fmt.line("PROFILE embedded " + timers.total() + " " + timers.failures());
            }
        };
        try {
            for (ServerSources.Source s : sources.sources) {
                relays.add(s.ctx().postbox.relay(publisher).instanceId("embedded-" + s.name()).batchSize(batch)
                        .listener(timers).start());
            }
        } catch (RuntimeException e) {
            running.close();
            throw e;
        }
        return running;
    }

    /** postbox-server in this JVM, started from {@code config} as {@code postbox-server run} does. */
    static DrainRelays server(Path config) {
        CpuClock cpu = CpuClock.start();
        RelayServer server = RelayServer.start(new ConfigLoader().load(config));
        return new DrainRelays() {
            @Override
            public long cpuNanos() {
                return cpu.elapsedNanos();
            }

            @Override
            public void close() {
                server.close();
            }
        };
    }

    /** Replica processes just started; a replica that exits is a problem. */
    static DrainRelays replicas(ServerReplicas replicas) {
        return new DrainRelays() {
            @Override
            public long cpuNanos() {
                return replicas.cpuNanos();
            }

            @Override
            public String problem(long delivered) {
                return replicas.problem(delivered);
            }

            @Override
            public void close() {
                replicas.close();
            }
        };
    }
}
