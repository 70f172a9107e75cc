package dev.postbox.relay;

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
 * Keeps the relay's main sources as issue 12 left them: every file short, the loop, threads and pool
 * on the polling engine ({@code dev.postbox.internal.poll}), dialect differences decided by the dialect's
 * capabilities (or the one strategy selection, {@link Claimer#forDialect}), and status codes in SQL from
 * {@code OutboxStatus.code()}. A plain scan of the source text: a rule broken in a comment counts too.
 */
class RelaySourceRulesTest {

    /** The module's directory is the tests' working directory (Maven's and the IDEs' default). */
    private static final Path SOURCES = Path.of("src/main/java/dev/postbox/relay");
    private static final int MAX_LINES = 300;

    private record Rule(String name, Pattern pattern, String instead) {
    }

    private static final List<Rule> RULES = List.of(
            new Rule("new Thread(", Pattern.compile("new\\s+Thread\\s*\\("),
                    "run on PollLoop, or name executor threads with DaemonThreads"),
            new Rule("HikariConfig", Pattern.compile("HikariConfig"), "open a pool with Pools.own"),
            new Rule(".wait(", Pattern.compile("\\.wait\\s*\\("), "let PollLoop wait and wake up"),
            new Rule("dialect ==", Pattern.compile("(?i)dialect(\\(\\))?\\s*[!=]=|[!=]=\\s*Dialect\\."),
                    "ask a capability of Dialect, or choose the strategy in Claimer.forDialect"),
            new Rule("dialect.name().equals", Pattern.compile("name\\(\\)\\s*\\.\\s*equals"),
                    "ask a capability of Dialect, or choose the strategy in Claimer.forDialect"),
            new Rule("bare publish_status number",
                    Pattern.compile("(?i)publish_status\\s*(=|<>|!=|<|>)\\s*\\d|publish_status\\s+(NOT\\s+)?IN\\s*\\(\\s*\\d"),
                    "write the code from OutboxStatus.code() (StatusCodes)"));

    @Test
    void theScanSeesTheRelaySources() throws IOException {
        assertThat(sources()).as("relay main sources under " + SOURCES.toAbsolutePath())
                .extracting(p -> p.getFileName().toString())
                .contains("Relay.java", "RelayBuilder.java", "Leases.java", "Followers.java", "ClaimSql.java");
    }

    @Test
    void everyRelayMainSourceIsUnderTheLineLimit() throws IOException {
        List<String> tooLong = new ArrayList<>();
        for (Path p : sources()) {
            int lines = Files.readAllLines(p).size();
            if (lines >= MAX_LINES) {
                tooLong.add(p.getFileName() + ": " + lines + " lines (limit: under " + MAX_LINES + ")");
            }
        }
        assertThat(tooLong).as("split these into cohesive package-private classes").isEmpty();
    }

    @Test
    void noRelayMainSourceBreaksARule() throws IOException {
        List<String> broken = new ArrayList<>();
        for (Path p : sources()) {
            List<String> lines = Files.readAllLines(p);
            for (int i = 0; i < lines.size(); i++) {
                for (Rule rule : RULES) {
                    if (rule.pattern().matcher(lines.get(i)).find()) {
                        broken.add(p.getFileName() + ":" + (i + 1) + ": " + rule.name() + " (" + rule.instead() + "): "
                                + lines.get(i).strip());
                    }
                }
            }
        }
        assertThat(broken).isEmpty();
    }

    /** The rules themselves: each catches what it forbids and lets the allowed forms pass. */
    @Test
    void theRulesCatchWhatTheyForbid() {
        assertThat(broken("Thread t = new Thread(this::run, name);")).containsExactly("new Thread(");
        assertThat(broken("HikariConfig cfg = new HikariConfig();")).containsExactly("HikariConfig");
        assertThat(broken("signal.wait(idleMs);")).containsExactly(".wait(");
        assertThat(broken("if (dialect == Dialect.H2) {")).containsExactly("dialect ==");
        assertThat(broken("settings.dialect() == Dialect.POSTGRESQL")).containsExactly("dialect ==");
        assertThat(broken("dialect.name().equals(\"mysql\")")).containsExactly("dialect.name().equals");
        assertThat(broken("\" WHERE e.publish_status = 1 AND\"")).containsExactly("bare publish_status number");
        assertThat(broken("\" AND publish_status IN (0, 1, 3, 5)\"")).containsExactly("bare publish_status number");
        assertThat(broken("\" AND p.publish_status = %d AND\"")).isEmpty();
        assertThat(broken("\" publish_status IN (%s)\"")).isEmpty();
        assertThat(broken("if (dialect.idArrays()) {")).isEmpty();
        assertThat(broken("loop.wakeUp();")).isEmpty();
    }

    private static List<String> broken(String line) {
        return RULES.stream().filter(r -> r.pattern().matcher(line).find()).map(Rule::name).toList();
    }

    private static List<Path> sources() throws IOException {
        try (Stream<Path> files = Files.list(SOURCES)) {
            return files.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        }
    }
}
