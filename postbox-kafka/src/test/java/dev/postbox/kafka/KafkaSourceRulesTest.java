package dev.postbox.kafka;

import dev.postbox.testing.SourceScan;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

/**
 * Keeps this transport's background work on the polling engine, as issue 12 left it: no main source
 * (the {@link KafkaEnvelopeConsumer} above all) starts a thread of its own; the loop runs on
 * {@code dev.postbox.internal.poll.PollLoop}. The scan itself is proven by core's {@code SourceScanTest}.
 */
class KafkaSourceRulesTest {

    @Test
    void noMainSourceStartsAThreadOfItsOwn() {
        // the module's directory is the tests' working directory (Maven's and the IDEs' default)
        SourceScan.assertNoThreadsOfTheirOwn(Path.of("src/main/java/dev/postbox/kafka"), "KafkaEnvelopeConsumer.java");
    }
}
