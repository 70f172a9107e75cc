package dev.postbox.cli;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the command decides before it asks the console anything: usage errors name the option, the password
 * comes from exactly one place, an unreachable console is an error. The console here is a closed port.
 */
class CommandLineTest {

    private static String nowhere;

    @TempDir
    Path dir;

    @BeforeAll
    static void closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            nowhere = "http://127.0.0.1:" + s.getLocalPort() + "/postbox";
        }
    }

    private static Cli cli() {
        return new Cli().env("POSTBOX_URL", nowhere);
    }

    @Test
    void helpListsTheCommandsAndTheExitCodes() {
        Cli.Result r = cli().run("--help");
        assertThat(r.exitCode()).isZero();
        assertThat(r.out()).contains("status", "search", "show", "blocked", "retry", "cancel-sequence", "bulk", "audit")
                .contains("Exit codes:", "3  status", "5  denied");
    }

    @Test
    void anActionWithoutReasonIsAUsageErrorNamingIt() {
        Cli.Result r = cli().run("retry", "E-1");
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCode.USAGE);
        assertThat(r.err()).contains("Missing required option", "--reason");
        assertThat(cli().run("cancel", "E-1", "--reason", "  ").err()).contains("--reason: must not be blank");
        assertThat(cli().run("cancel-sequence", "ORDER", "ORD-1").err()).contains("--reason");
    }

    @Test
    void aBulkActionNeedsCapAndReason() {
        Cli.Result r = cli().run("bulk", "retry", "status:dead", "--reason", "fixed");
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCode.USAGE);
        assertThat(r.err()).contains("--cap: is required");
        r = cli().run("bulk", "cancel", "status:dead", "--cap", "10");
        assertThat(r.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(r.err()).contains("--reason: is required");
        r = cli().run("bulk", "cancel", "status:dead", "--cap", "10", "--reason", "r", "--dry-run", "--yes");
        assertThat(r.err()).contains("--dry-run: and --yes are exclusive");
        r = cli().run("-o", "json", "bulk", "cancel", "status:dead", "--cap", "10", "--reason", "r");
        assertThat(r.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(r.err()).contains("needs --dry-run or --yes");
        assertThat(cli().run("bulk", "delete", "x").err()).contains("retry|cancel|status");
    }

    @Test
    void revealingAPayloadNeedsAReason() {
        Cli.Result r = cli().run("show", "E-1", "--reveal");
        assertThat(r.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(r.err()).contains("--reason: is required with --reveal");
    }

    @Test
    void badValuesAreRefusedBeforeAnyRequest() {
        assertThat(cli().run("search", "x", "--limit", "0").err()).contains("--limit: must be between 1 and 1000 (was 0)");
        assertThat(cli().run("search", "x", "--all", "--max", "0").err()).contains("--max: must be between 1");
        assertThat(cli().run("audit", "--since", "yesterday").err()).contains("--since: expected a duration ago");
        assertThat(cli().run("search", "x", "--kind", "inbox").exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(cli().run("frobnicate").exitCode()).isEqualTo(ExitCode.USAGE);
        Cli.Result r = cli().run("--url", "ftp://host/x", "status");
        assertThat(r.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(r.err()).contains("--url: must start with http:// or https://");
    }

    @Test
    void thePasswordComesFromExactlyOnePlace() {
        Cli.Result r = cli().run("--user", "ann", "--password-env", "PW", "--password-stdin", "status");
        assertThat(r.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(r.err()).contains("--password-env and --password-stdin are exclusive");
        r = cli().run("--user", "ann", "--password-env", "PW", "status");
        assertThat(r.err()).contains("--password-env: environment variable PW is not set");
        r = cli().run("--user", "ann", "--password-file", dir.resolve("missing").toString(), "status");
        assertThat(r.err()).contains("--password-file: no such file");
        r = cli().run("--user", "ann", "status");
        assertThat(r.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(r.err()).contains("no password for user ann", "POSTBOX_PASSWORD");
        r = cli().run("--user", "ann", "--password", "status");
        assertThat(r.err()).contains("--password: no terminal to ask on");
    }

    @Test
    void aPasswordOnTheCommandLineWorksWithAWarning() {
        Cli.Result r = cli().run("--user", "ann", "--password=s3cret", "status");
        assertThat(r.err()).contains("warning: a password given as an argument shows in ps");
        assertThat(r.err()).doesNotContain("s3cret");
        assertThat(r.exitCode()).isEqualTo(ExitCode.ERROR); // and then the console is not there
    }

    @Test
    void anUnreachableConsoleIsAnErrorNamingTheAddress() {
        Cli.Result r = cli().run("status");
        assertThat(r.exitCode()).isEqualTo(ExitCode.ERROR);
        assertThat(r.err()).contains("cannot reach the console at " + nowhere);
        assertThat(r.out()).isEmpty();
        assertThat(cli().run("status", "--url", nowhere + "x").err()).as("an option after the command")
                .contains(nowhere + "x");
    }
}
