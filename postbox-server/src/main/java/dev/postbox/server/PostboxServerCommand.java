package dev.postbox.server;

import dev.postbox.server.config.ConfigException;
import dev.postbox.server.config.ConfigLoader;
import dev.postbox.server.config.ServerConfig;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code postbox-server}: the standalone relay's command line. {@code validate FILE} checks a configuration file and
 * everything it names without starting anything. Exit codes: 0 all good, 1 a check failed, 2 the file itself is bad.
 */
@Command(name = "postbox-server", mixinStandardHelpOptions = true, version = "postbox-server 0.1.0-SNAPSHOT",
        description = "The standalone Postbox relay: N source databases x M destinations from one YAML file.",
        subcommands = {PostboxServerCommand.Run.class, PostboxServerCommand.Validate.class,
                PostboxServerCommand.SampleEvents.class, PostboxServerCommand.HashPassword.class})
public final class PostboxServerCommand implements Callable<Integer> {

    /** Exit code: a check of {@code validate} failed. */
    public static final int CHECK_FAILED = 1;
    /** Exit code: the configuration file is bad (each problem printed with its key). */
    public static final int BAD_CONFIGURATION = 2;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(new CommandLine(new PostboxServerCommand()).execute(args));
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return 0;
    }

    /** {@code file} read and checked; null after printing every problem with its key. */
    static ServerConfig load(Path file, CommandLine.Model.CommandSpec spec) {
        try {
            return new ConfigLoader().load(file);
        } catch (ConfigException e) {
            spec.commandLine().getErr().println(e.getMessage());
            spec.commandLine().getErr().flush();
            return null;
        }
    }

    /** {@code run FILE}: starts the relays and the health endpoint, until the process is told to stop. */
    @Command(name = "run", mixinStandardHelpOptions = true,
            description = "Relay every source of FILE to its destinations until stopped (SIGTERM, Ctrl-C): then stop"
                    + " claiming, finish or give back what is held, close the destinations.")
    static final class Run implements Callable<Integer> {

        @Parameters(index = "0", paramLabel = "FILE", description = "the server's YAML configuration")
        Path file;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws InterruptedException {
            ServerConfig config = load(file, spec);
            if (config == null) {
                return BAD_CONFIGURATION;
            }
            Logs.bridgeJavaUtilLogging();
            if (config.server().jsonLogs()) {
                Logs.json();
            }
            RelayServer server;
            try {
                server = RelayServer.start(config);
            } catch (RelayServer.ServerStartException e) {
                spec.commandLine().getErr().println(e.getMessage());
                return CHECK_FAILED;
            }
            java.util.concurrent.CountDownLatch stopped = new java.util.concurrent.CountDownLatch(1);
            PrintWriter out = spec.commandLine().getOut();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                server.close();
                stopped.countDown();
                out.flush();
                System.out.flush();
                System.err.flush();
                // a stop asked for (SIGTERM, Ctrl-C) and done gracefully is a success: exit 0, not 143; main's own
                // System.exit would block here, the JVM being already on its way out
                Runtime.getRuntime().halt(0);
            }, "postbox-server-shutdown"));
            spec.commandLine().getOut().println("postbox-server running: health on port " + server.port()
                    + " (/health/ready; /metrics, /api/sources, /api/destinations, the consoles under /)");
            spec.commandLine().getOut().flush();
            stopped.await();
            return 0;
        }
    }

    /** {@code hash-password}: a console user's {@code password-hash} for the configuration file. */
    @Command(name = "hash-password", mixinStandardHelpOptions = true,
            description = "Print the hash of a console user's password for server.console.users.NAME.password-hash;"
                    + " the password is read from the terminal without echo, or from standard input with --stdin.")
    static final class HashPassword implements Callable<Integer> {

        @Option(names = "--stdin", description = "read the password from the first line of standard input")
        boolean stdin;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws java.io.IOException {
            char[] password;
            if (stdin || System.console() == null) {
                String line = new java.io.BufferedReader(new java.io.InputStreamReader(System.in,
                        java.nio.charset.StandardCharsets.UTF_8)).readLine();
                password = line == null ? new char[0] : line.toCharArray();
            } else {
                password = System.console().readPassword("password: ");
            }
            if (password == null || password.length < 8) {
                spec.commandLine().getErr().println("password: must be at least 8 characters");
                return BAD_CONFIGURATION;
            }
            spec.commandLine().getOut().println(dev.postbox.console.PasswordHash.create(password));
            java.util.Arrays.fill(password, ' ');
            spec.commandLine().getOut().flush();
            return 0;
        }
    }

    /** {@code sample FILE}: a first run's helper (tables, exchange, stream, sample events). */
    @Command(name = "sample", mixinStandardHelpOptions = true,
            description = "For a first run (scripts/server): install Postbox's tables on each source where they are"
                    + " missing, declare each route topic's RabbitMQ exchange (with a queue) or JetStream stream, and"
                    + " write sample events for every route with a topic. Never for production.")
    static final class SampleEvents implements Callable<Integer> {

        @Parameters(index = "0", paramLabel = "FILE", description = "the server's YAML configuration")
        Path file;

        @Option(names = "--events", defaultValue = "10", paramLabel = "N", description = "per route (default ${DEFAULT-VALUE})")
        int events;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            ServerConfig config = load(file, spec);
            if (config == null) {
                return BAD_CONFIGURATION;
            }
            if (events < 0 || events > 100_000) {
                spec.commandLine().getErr().println("--events: must be between 0 and 100000 (was " + events + ")");
                return BAD_CONFIGURATION;
            }
            Sample.run(config, events).forEach(spec.commandLine().getOut()::println);
            spec.commandLine().getOut().flush();
            return 0;
        }
    }

    /** {@code validate FILE}: the file, then every source, destination and named topic it refers to. */
    @Command(name = "validate", mixinStandardHelpOptions = true,
            description = "Check FILE and what it names: databases reachable with their credentials, Postbox's schema"
                    + " present at this version, the relay's privileges, destinations reachable, the routes' topics,"
                    + " exchanges and streams there. Starts nothing, changes nothing.")
    static final class Validate implements Callable<Integer> {

        @Parameters(index = "0", paramLabel = "FILE", description = "the server's YAML configuration")
        Path file;

        @Option(names = "--timeout", defaultValue = "5s", paramLabel = "DURATION",
                description = "per connection (default ${DEFAULT-VALUE})")
        String timeout;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            ServerConfig config = load(file, spec);
            if (config == null) {
                return BAD_CONFIGURATION;
            }
            Duration t = dev.postbox.server.config.ConfigLoader.duration(timeout);
            if (t == null) {
                err.println("--timeout: not a duration (was '" + timeout + "'): write 500ms, 5s or PT5S");
                return BAD_CONFIGURATION;
            }
            out.println(file + ": " + config.sources().size() + " sources, " + config.destinations().size()
                    + " destinations, " + config.routes().size() + " routes");
            TracingPlan tracing = TracingPlan.ofProcess(config.tracing());
            out.println("tracing " + (tracing.enabled() ? "on: " : "off: ") + tracing.reason());
            List<Validator.Check> checks = new Validator(t).validate(config);
            checks.forEach(out::println);
            long failed = checks.stream().filter(c -> !c.ok()).count();
            out.println(failed == 0 ? "valid: " + checks.size() + " checks passed"
                    : "not valid: " + failed + " of " + checks.size() + " checks failed");
            out.flush();
            return failed == 0 ? 0 : CHECK_FAILED;
        }
    }
}
