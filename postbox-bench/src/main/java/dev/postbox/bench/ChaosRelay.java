package dev.postbox.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.postbox.Postbox;
import dev.postbox.http.HttpPublisher;
import dev.postbox.relay.Relay;

import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * A chaos relay process: one ordered relay ({@code --instance} is its {@code locked_by}) publishing every
 * event with {@link HttpPublisher} to the sink process. Runs until it is killed ({@code kill -9}, the
 * point of the run) or stopped (SIGTERM: the relay closes, giving back the leases it holds).
 */
public final class ChaosRelay {

    private ChaosRelay() {
    }

    static Map<String, String> defaults() {
        Map<String, String> d = new LinkedHashMap<>();
        d.put("url", "");
        d.put("user", "");
        d.put("dialect", "");
        d.put("instance", "");
        d.put("batch", "100");
        d.put("lease-ms", String.valueOf(dev.postbox.relay.RelayDefaults.LEASE.toMillis()));
        d.put("send-timeout-ms", "5000");
        d.put("sink", "");
        d.put("secret", "");
        return d;
    }

    public static void main(String[] args) throws Exception {
        Options o = ChaosRole.start("relay", args, defaults());
        String instance = o.string("instance");
        Duration sendTimeout = Duration.ofMillis(o.positiveInt("send-timeout-ms"));
        HikariDataSource pool = ChaosRole.pool("chaos-" + instance, o.string("url"), o.string("user"), 1);
        Postbox postbox = Postbox.builder(pool).dialect(ChaosProducer.dialect(o.string("dialect"))).build();
        HttpPublisher http = HttpPublisher.builder().endpoint("sink", URI.create(o.string("sink")))
                .route(ChaosProducer.TOPIC, "sink").secret(o.string("secret")).requestTimeout(sendTimeout.minusMillis(sendTimeout.toMillis() / 5))
                .connectTimeout(Duration.ofSeconds(2)).build();
        Relay relay = postbox.relay(http).instanceId(instance).batchSize(o.positiveInt("batch"))
                .leaseDuration(Duration.ofMillis(o.positiveInt("lease-ms"))).sendTimeout(sendTimeout).start();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            relay.close();
            pool.close();
            stopped.countDown();
        }, "chaos-relay-stop"));
        System.out.println(ChaosRole.READY);
        System.out.flush();
        stopped.await();
    }
}
