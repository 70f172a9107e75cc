package dev.postbox.nats;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps this transport's background work on the polling engine, as issue 12 left it: no main source
 * (the {@link NatsSubscriber} above all) starts a thread of its own; the loop runs on
 * {@code dev.postbox.internal.poll.PollLoop}. A plain scan of the source text: a comment counts too.
 */
class NatsSourceRulesTest {

    /** The module's directory is the tests' working directory (Maven's and the IDEs' default). */
    private static final Path SOURCES = Path.of("src/main/java/dev/postbox/nats");
    private static final Pattern NEW_THREAD = Pattern.compile("new\\s+Thread\\s*\\(");

    @Test
    void theScanSeesTheConsumerLoop() throws IOException {
        assertThat(sources()).as("main sources under " + SOURCES.toAbsolutePath())
                .extracting(p -> p.getFileName().toString()).contains("NatsSubscriber.java");
    }

    @Test
    void noMainSourceStartsAThreadOfItsOwn() throws IOException {
        List<String> broken = new ArrayList<>();
        for (Path p : sources()) {
            broken.addAll(newThreads(p.getFileName().toString(), Files.readAllLines(p)));
        }
        assertThat(broken).isEmpty();
    }

    @Test
    void theRuleCatchesWhatItForbids() {
        assertThat(newThreads("X.java", List.of("this.thread = new Thread(this::loop, name);"))).hasSize(1);
        assertThat(newThreads("X.java", List.of("Thread t = new  Thread (work);"))).hasSize(1);
        assertThat(newThreads("X.java", List.of("loop.start(i -> () -> turn(l));", "Thread.currentThread()"))).isEmpty();
    }

    private static List<String> newThreads(String file, List<String> lines) {
        List<String> found = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (NEW_THREAD.matcher(lines.get(i)).find()) {
                found.add(file + ":" + (i + 1) + ": new Thread( (run the loop on PollLoop): " + lines.get(i).strip());
            }
        }
        return found;
    }

    private static List<Path> sources() throws IOException {
        try (Stream<Path> files = Files.walk(SOURCES)) {
            return files.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        }
    }
}
