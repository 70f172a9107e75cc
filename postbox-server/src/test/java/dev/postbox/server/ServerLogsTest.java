package dev.postbox.server;

import dev.postbox.console.PasswordHash;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The server's logs as a process writes them: text by default, one JSON object per line with {@code json-logs: true};
 * and {@code hash-password}, whose output the console accepts. The server here relays a database that is not there
 * (a closed port), so it starts, waits for it and says so in its log, with no service needed.
 */
class ServerLogsTest {

    private static String config(int closedPort, boolean json) {
        return """
                server: {address: 127.0.0.1, port: 0, json-logs: %s}
                sources:
                  orders: {jdbc-url: 'jdbc:postgresql://127.0.0.1:%d/none?connectTimeout=1', username: x}
                destinations:
                  hook: {type: http, url: 'http://127.0.0.1:%d/hook'}
                routes:
                  - {source: orders, channel: HTTP, destination: hook}
                """.formatted(json, closedPort, closedPort);
    }

    private static int closedPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Runs the server on {@code yaml} until its log says the source waits; its standard error lines. */
    private static List<String> logOf(Path dir, String yaml) throws Exception {
        Files.createDirectories(dir);
        Path file = dir.resolve("server.yml");
        Files.writeString(file, yaml);
        Path err = dir.resolve("stderr.log");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), PostboxServerCommand.class.getName(), "run", file.toString()));
        Process p = new ProcessBuilder(command).redirectError(err.toFile())
                .redirectOutput(dir.resolve("stdout.log").toFile()).start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < deadline) {
                if (Files.readString(err).contains("waits")) {
                    break;
                }
                assertThat(p.isAlive()).as("the server runs: " + Files.readString(err)).isTrue();
                Thread.sleep(100);
            }
            Thread.sleep(200);
            List<String> lines = Files.readAllLines(err);
            assertThat(String.join("\n", lines)).as("within 30 s the log says the source waits").contains("waits");
            return lines;
        } finally {
            p.destroy();
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
    }

    @Test
    void logsAreTextByDefaultAndJsonLinesWhenAsked(@TempDir Path dir) throws Exception {
        int port = closedPort();
        List<String> text = logOf(dir.resolve("text"), config(port, false));
        assertThat(text).anySatisfy(l -> assertThat(l).matches("\\d{4}-\\d\\d-\\d\\dT.* WARN  \\[.*\\] "
                + "dev\\.postbox\\.server\\.SourceRelay - Source orders \\(sources\\.orders\\) waits: database not"
                + " reachable.*"));

        List<String> json = logOf(dir.resolve("json"), config(port, true));
        List<String> after = json.subList(json.indexOf(json.stream().filter(l -> l.startsWith("{")).findFirst()
                .orElseThrow(() -> new AssertionError("no JSON line in:\n" + String.join("\n", json)))), json.size());
        assertThat(after).as("every line once JSON is on").allSatisfy(l -> assertThat(l).startsWith("{").endsWith("}"));
        assertThat(after).anySatisfy(l -> assertThat(l).contains("\"level\":\"WARN\"",
                "\"loggerName\":\"dev.postbox.server.SourceRelay\"", "\"formattedMessage\":\"Source orders (sources.orders) waits"));
    }

    @Test
    void hashPasswordPrintsAHashTheConsoleAccepts() {
        InputStream in = System.in;
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        try {
            System.setIn(new ByteArrayInputStream("correct horse battery\n".getBytes(StandardCharsets.UTF_8)));
            int code = new CommandLine(new PostboxServerCommand()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
                    .execute("hash-password", "--stdin");
            assertThat(code).as(err.toString()).isZero();
            String hash = out.toString().trim();
            assertThat(hash).startsWith("pbkdf2-sha256$");
            assertThat(PasswordHash.verify(hash, "correct horse battery".toCharArray())).isTrue();
            assertThat(PasswordHash.verify(hash, "correct horse battery!".toCharArray())).isFalse();

            System.setIn(new ByteArrayInputStream("short\n".getBytes(StandardCharsets.UTF_8)));
            StringWriter err2 = new StringWriter();
            assertThat(new CommandLine(new PostboxServerCommand()).setErr(new PrintWriter(err2))
                    .execute("hash-password", "--stdin")).isEqualTo(PostboxServerCommand.BAD_CONFIGURATION);
            assertThat(err2.toString()).contains("password: must be at least 8 characters");
        } finally {
            System.setIn(in);
        }
    }
}
