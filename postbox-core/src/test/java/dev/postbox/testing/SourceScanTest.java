package dev.postbox.testing;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The scan behind the transports' source rules catches what it forbids, and only that. */
class SourceScanTest {

    @Test
    void newThreadIsCaughtHoweverItIsSpacedAndNothingElseIs() {
        assertThat(SourceScan.matches("X.java", List.of("this.thread = new Thread(this::loop, name);"),
                SourceScan.NEW_THREAD, "why")).containsExactly("X.java:1: why: this.thread = new Thread(this::loop, name);");
        assertThat(SourceScan.matches("X.java", List.of("Thread t = new  Thread (work);"), SourceScan.NEW_THREAD, "why"))
                .hasSize(1);
        assertThat(SourceScan.matches("X.java", List.of("loop.start(i -> () -> turn(l));", "Thread.currentThread()"),
                SourceScan.NEW_THREAD, "why")).isEmpty();
    }

    @Test
    void theAssertionFailsOnAThreadAndOnAScanThatSeesNothing(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("Loop.java"), "class Loop { Thread t = new Thread(() -> {}); }\n");
        assertThatThrownBy(() -> SourceScan.assertNoThreadsOfTheirOwn(dir, "Loop.java"))
                .isInstanceOf(AssertionError.class).hasMessageContaining("Loop.java:1");
        assertThatThrownBy(() -> SourceScan.assertNoThreadsOfTheirOwn(dir, "Missing.java"))
                .isInstanceOf(AssertionError.class).hasMessageContaining("does not see Missing.java");
        Files.writeString(dir.resolve("Loop.java"), "class Loop { PollLoop loop; }\n");
        SourceScan.assertNoThreadsOfTheirOwn(dir, "Loop.java");
    }
}
