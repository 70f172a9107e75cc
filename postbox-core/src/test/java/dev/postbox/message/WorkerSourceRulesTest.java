package dev.postbox.message;

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
 * Keeps the message worker and the compensation job on the one polling engine: their main sources stay
 * small, start no thread or loop and open no pool of their own, leave dialect differences to the
 * dialect's capabilities and take status codes from the enums.
 */
class WorkerSourceRulesTest {

    private static final int MAX_LINES = 300;
    private static final List<Path> PACKAGES = List.of(Path.of("src/main/java/dev/postbox/message"),
            Path.of("src/main/java/dev/postbox/compensation"));

    /** A rule: what it forbids, and why. */
    private record Rule(Pattern forbidden, String why) {
        static Rule text(String text, String why) {
            return new Rule(Pattern.compile(Pattern.quote(text)), why);
        }
    }

    private static final List<Rule> RULES = List.of(
            Rule.text("new Thread(", "threads come from the polling engine (PollLoop)"),
            Rule.text("HikariConfig", "a job's own pool comes from Pools.own"),
            Rule.text(".wait(", "idle waits and wake-ups are the polling engine's"),
            Rule.text("dialect ==", "dialect differences are Dialect capabilities or a strategy chosen once"),
            Rule.text("dialect !=", "dialect differences are Dialect capabilities or a strategy chosen once"),
            new Rule(Pattern.compile("Dialect\\.(H2|MYSQL|POSTGRESQL)\\b"),
                    "dialect differences are Dialect capabilities or a strategy chosen once"),
            new Rule(Pattern.compile("event_status\\s*=\\s*\\d"), "status codes come from MessageStatus.code()"),
            new Rule(Pattern.compile("\\bIN\\s*\\(\\s*\\d"), "status codes come from the status enums"),
            new Rule(Pattern.compile("compensate_status\\s*(=|IN)\\s*\\(?\\s*'[A-Z]"),
                    "compensation statuses come from CompensationStatus"));

    @Test
    void workerAndCompensationSourcesStaySmallAndOnTheEngine() throws IOException {
        List<Path> sources = sources();
        assertThat(sources).as("sources scanned").extracting(p -> p.getFileName().toString())
                .contains("MessageWorker.java", "WorkerStore.java", "CompensationJob.java", "JdbcMessageEvents.java",
                        "JdbcCompensations.java");
        List<String> broken = new ArrayList<>();
        for (Path source : sources) {
            broken.addAll(violations(source.toString(), Files.readString(source)));
        }
        assertThat(broken).as("rules broken").isEmpty();
    }

    @Test
    void theRulesCatchWhatTheyForbid() {
        String bad = """
                class Bad {
                    void run() throws Exception {
                        new Thread(() -> { }).start();
                        new com.zaxxer.hikari.HikariConfig();
                        signal.wait(10);
                        if (dialect == Dialect.H2) { }
                        String sql = "UPDATE t SET event_status = 1 WHERE event_status IN (0, 3)";
                        String log = "UPDATE c SET compensate_status = 'DONE'";
                    }
                }
                """ + "\n".repeat(MAX_LINES);
        // every rule but "dialect !=" once, and the length
        assertThat(violations("Bad.java", bad)).hasSize(RULES.size());
        assertThat(violations("Good.java", """
                String sql = "UPDATE t SET event_status = %d WHERE event_status IN (%d, %d)";
                String log = "UPDATE c SET compensate_status = '%s'".formatted(CompensationStatus.DONE.name());
                if (dialect.claimsWithSkipLocked()) { }
                """)).isEmpty();
    }

    private static List<Path> sources() throws IOException {
        List<Path> all = new ArrayList<>();
        for (Path dir : PACKAGES) {
            assertThat(dir).as("package folder (tests run in the module folder)").isDirectory();
            try (Stream<Path> files = Files.walk(dir)) {
                files.filter(p -> p.toString().endsWith(".java")).sorted().forEach(all::add);
            }
        }
        return all;
    }

    private static List<String> violations(String name, String text) {
        List<String> found = new ArrayList<>();
        long lines = text.lines().count();
        if (lines > MAX_LINES) {
            found.add(name + ": " + lines + " lines, at most " + MAX_LINES);
        }
        for (Rule rule : RULES) {
            var m = rule.forbidden().matcher(text);
            if (m.find()) {
                found.add(name + ": contains '" + m.group() + "' (" + rule.why() + ")");
            }
        }
        return found;
    }
}
