package dev.postbox.bench;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * scripts/bench's usage comment stays true: it lists every command, and under each every option the
 * command takes, so an option added to a command without its usage line fails here.
 */
class UsageTextTest {

    private static List<String> usageComment() throws Exception {
        Path script = Path.of("..", "scripts", "bench");
        List<String> comment = new ArrayList<>();
        for (String line : Files.readAllLines(script)) {
            if (line.startsWith("set ")) {
                break;
            }
            comment.add(line);
        }
        return comment;
    }

    /** The lines of {@code command}'s entry: from {@code scripts/bench <command>} to the next command's. */
    private static String entry(List<String> comment, String command) {
        StringBuilder b = new StringBuilder();
        boolean in = false;
        for (String line : comment) {
            if (line.matches("#\\s+scripts/bench \\S+.*")) {
                in = line.matches("#\\s+scripts/bench " + command + "\\b.*");
            }
            if (in) {
                b.append(line).append('\n');
            }
        }
        return b.toString();
    }

    @Test
    void everyCommandAndEachOfItsOptionsIsInTheUsageComment() throws Exception {
        List<String> comment = usageComment();
        for (Command c : Bench.COMMANDS) {
            String entry = entry(comment, c.name());
            assertThat(entry).as("usage entry of %s", c.name()).isNotEmpty();
            for (String option : c.defaults().keySet()) {
                assertThat(entry).as("option --%s of %s", option, c.name()).containsPattern("--" + option + "\\b");
            }
        }
    }
}
