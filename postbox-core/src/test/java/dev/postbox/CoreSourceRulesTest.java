package dev.postbox;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rules for the whole of core's main code (the relay's and the worker's own rules are in
 * {@code RelaySourceRulesTest} and {@code WorkerSourceRulesTest}): dialects decide only in {@code jdbc/}
 * (capabilities, or a strategy chosen once there), background threads only in the polling engine
 * ({@code internal/poll}), status codes in SQL only from the status enums, and the four job classes the
 * engine serves stay under 300 lines.
 */
class CoreSourceRulesTest {

    private static final Path MAIN = Path.of("src/main/java/dev/postbox");
    private static final int MAX_JOB_LINES = 300;
    private static final List<String> JOBS = List.of("relay/Relay.java", "message/MessageWorker.java",
            "message/WorkerStore.java", "compensation/CompensationJob.java");

    private record Rule(Pattern forbidden, String allowedUnder, String why) {
    }

    private static final List<Rule> RULES = List.of(
            new Rule(Pattern.compile("Dialect\\.(H2|MYSQL|POSTGRESQL)\\b"), "jdbc/",
                    "dialects decide in jdbc/: a Dialect capability or a strategy chosen once"),
            new Rule(Pattern.compile("[dD]ialect(\\(\\))?\\s*[!=]=\\s*(dev\\.postbox\\.jdbc\\.)?Dialect\\."), "jdbc/",
                    "dialects decide in jdbc/: a Dialect capability or a strategy chosen once"),
            new Rule(Pattern.compile("name\\(\\)\\.equals(IgnoreCase)?\\(\"(mysql|postgresql|h2)\""), "jdbc/",
                    "dialects decide in jdbc/: a Dialect capability or a strategy chosen once"),
            new Rule(Pattern.compile("new Thread\\("), "internal/poll/",
                    "background threads come from the polling engine (PollLoop, DaemonThreads)"),
            new Rule(Pattern.compile("new HikariConfig\\("), "internal/poll/", "a job's own pool comes from Pools.own"),
            new Rule(Pattern.compile("(publish_status|event_status)\\s*(=|<>|!=|IN)\\s*\\(?\\s*\\d"), null,
                    "status codes in SQL come from OutboxStatus/MessageStatus.code()"));

    @Test
    void coreMainSourcesKeepTheRules() throws IOException {
        List<String> broken = new ArrayList<>();
        List<Path> sources;
        try (Stream<Path> files = Files.walk(MAIN)) {
            sources = files.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        }
        assertThat(sources).as("core main sources").hasSizeGreaterThan(100);
        for (Path source : sources) {
            String relative = MAIN.relativize(source).toString().replace('\\', '/');
            broken.addAll(violations(relative, Files.readString(source)));
        }
        assertThat(broken).as("rules broken").isEmpty();
    }

    @Test
    void theJobsTheEngineServesStaySmall() throws IOException {
        List<String> tooLong = new ArrayList<>();
        for (String job : JOBS) {
            long lines = Files.readAllLines(MAIN.resolve(job)).size();
            if (lines >= MAX_JOB_LINES) {
                tooLong.add(job + ": " + lines + " lines (limit: under " + MAX_JOB_LINES + ")");
            }
        }
        assertThat(tooLong).isEmpty();
    }

    @Test
    void theRulesCatchWhatTheyForbid() {
        assertThat(violations("relay/X.java", "if (settings.dialect() == Dialect.POSTGRESQL) {")).hasSize(2);
        assertThat(violations("query/X.java", "boolean my = dialect.name().equals(\"mysql\");")).hasSize(1);
        assertThat(violations("outbox/X.java", "String sql = \"WHERE publish_status IN (3, 5)\";")).hasSize(1);
        assertThat(violations("message/X.java", "\"AND event_status = 0\"")).hasSize(1);
        assertThat(violations("admin/X.java", "Thread t = new Thread(r);")).hasSize(1);
        assertThat(violations("jdbc/X.java", "if (dialect == Dialect.H2) {")).isEmpty();
        assertThat(violations("internal/poll/X.java", "Thread t = new Thread(r);")).isEmpty();
        assertThat(violations("outbox/X.java", "WHERE publish_status = ? AND retry_count = 0")).isEmpty();
    }

    private static List<String> violations(String relative, String text) {
        List<String> found = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        for (Rule rule : RULES) {
            if (rule.allowedUnder() != null && relative.startsWith(rule.allowedUnder())) {
                continue;
            }
            for (int i = 0; i < lines.length; i++) {
                Matcher m = rule.forbidden().matcher(lines[i]);
                if (m.find()) {
                    found.add(relative + ":" + (i + 1) + ": " + lines[i].strip() + "  <- " + rule.why());
                }
            }
        }
        return found;
    }
}
