package dev.postbox.kafka;

import dev.postbox.testing.SourceScan;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps this transport's background work on the polling engine, as issue 12 left it: no main source
 * (the {@link KafkaEnvelopeConsumer} above all) starts a thread of its own; the loop runs on
 * {@code dev.postbox.internal.poll.PollLoop}. A plain scan of the source text: a comment counts too.
 */
class KafkaSourceRulesTest {

    /** The module's directory is the tests' working directory (Maven's and the IDEs' default). */
    private static final Path SOURCES = Path.of("src/main/java/dev/postbox/kafka");
    private static final String WHY = "new Thread( (run the loop on PollLoop)";

    @Test
    void theScanSeesTheConsumerLoop() {
        assertThat(SourceScan.sources(SOURCES)).as("main sources under " + SOURCES.toAbsolutePath())
                .extracting(p -> p.getFileName().toString()).contains("KafkaEnvelopeConsumer.java");
    }

    @Test
    void noMainSourceStartsAThreadOfItsOwn() {
        assertThat(SourceScan.violations(SOURCES, SourceScan.NEW_THREAD, WHY)).isEmpty();
    }

    @Test
    void theRuleCatchesWhatItForbids() {
        assertThat(newThreads("this.thread = new Thread(this::loop, name);")).hasSize(1);
        assertThat(newThreads("Thread t = new  Thread (work);")).hasSize(1);
        assertThat(newThreads("loop.start(i -> () -> turn(l));", "Thread.currentThread()")).isEmpty();
    }

    private static List<String> newThreads(String... lines) {
        return SourceScan.matches("X.java", List.of(lines), SourceScan.NEW_THREAD, WHY);
    }
}
