package dev.postbox.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * {@code scripts/bench <drain|latency|steady|write|retention|search|chaos|server|tenants> [--option value ...]}: runs one scenario on a throw-away
 * database (chaos: on a private database server it starts and crashes; server: on a PostgreSQL and a MariaDB one at once) and prints, on stdout, {@code PARAMS}, the database, the {@code CEILING} measured in the same
 * run, progress, and last the {@code RESULT} line. Logs go to stderr. Exit code 0 when every check
 * passed, 1 when a check failed or the run broke, 2 for a bad command line.
 */
public final class Bench {

    /** Every command, in the order the usage lists them. */
    static final List<Command> COMMANDS = List.of(new DrainBench(), new LatencyBench(), new SteadyBench(),
            new WriteBench(), new RetentionBench(), new SearchBench(), new ChaosBench(), new ServerBench(),
            new TenantsBench());

    private Bench() {
    }

    public static void main(String[] args) {
        int code;
        try {
            code = run(args);
        } catch (UsageException e) {
            System.err.println("error: " + e.getMessage());
            System.err.println(usage());
            code = 2;
        } catch (Exception e) {
            System.err.println("error: the benchmark failed: " + e);
            e.printStackTrace();
            code = 1;
        }
        System.exit(code);
    }

    /** The core revision measured (set by scripts/bench), printed on the DB line. */
    static String revision() {
        return System.getProperty("postbox.bench.revision", "?");
    }

    private static int run(String[] args) throws Exception {
        if (args.length == 0 || args[0].equals("--help") || args[0].equals("-h")) {
            System.out.println(usage());
            return args.length == 0 ? 2 : 0;
        }
        Command command = COMMANDS.stream().filter(s -> s.name().equals(args[0])).findFirst()
                .orElseThrow(() -> new UsageException("unknown command '" + args[0] + "'"));
        Command.Outcome outcome = run(command, Arrays.asList(args).subList(1, args.length));
        return outcome.ok() ? 0 : 1;
    }

    /** Parses and validates {@code args}, prints PARAMS, runs {@code command} and prints its RESULT line. */
    static Command.Outcome run(Command command, List<String> args) throws Exception {
        Options options = Options.parse(args, command.defaults());
        if (command.defaults().containsKey("db")) { // server runs on both databases at once and has no --db
            BenchDatabase.kind(options.string("db"));
        }
        command.validate(options);
        Fmt.line("PARAMS scenario=" + command.name() + " " + options.describe());
        Command.Outcome outcome = command.run(options);
        Fmt.line(outcome.result());
        return outcome;
    }

    private static String usage() {
        StringBuilder b = new StringBuilder("usage: scripts/bench <command> [--option value ...]\n");
        for (Command s : COMMANDS) {
            b.append("  ").append(s.name());
            for (Map.Entry<String, String> e : s.defaults().entrySet()) {
                b.append(" [--").append(e.getKey()).append(' ').append(e.getValue()).append(']');
            }
            b.append('\n');
        }
        b.append("  --db postgres|mariadb|h2; --sink null|kafka|rabbitmq|nats|http (kafka: an in-process KRaft broker;"
                + " rabbitmq, nats: the local services; http: a local JDK HttpServer);"
                + " drain --history H first leaves H already-published rows;"
                + " drain --analyze off drains a table whose statistics were never refreshed, compare also drains it"
                + " again after ANALYZE (eps_analyzed, vs_analyzed);"
                + " drain --tracing on drains rows carrying a W3C traceparent with relays tracing on the OpenTelemetry SDK"
                + " (spans dropped), compare drains fresh backlogs untraced and traced (eps_untraced, eps_traced,"
                + " traced_vs_untraced);"
                + " write: business transaction alone (plain) vs with an event (event) vs with NOTIFY (event_notify,"
                + " PostgreSQL) vs traced (event_traced) at each --producers concurrency (a list), no relay unless --relay on;"
                + " retention: --history rows PUBLISHED 30 days ago, then the steady workload alone (baseline) and with"
                + " retention.runOnce() in a loop (cleanup; --strategy delete|archive, --duty-cycle of the retention, policy outbox(PUBLISHED, 7 days));"
                + " search: --rows events over 30 days, then first pages of the console's search per qualifier (p50/p99/max,"
                + " a primary-key lookup as the read ceiling);"
                + " every command prints cpu_ms_per_1k (this JVM's CPU per 1,000 events, bench included; chaos: of all its processes);"
                + " chaos: separate producer, relay and sink processes on a private database server, with relay kills,"
                + " a database crash and a sink outage (--db postgres|mariadb);"
                + " server: a PostgreSQL and a MariaDB source drained to NATS JetStream by postbox-server (in this JVM, then"
                + " --replicas processes) against two embedded relays (the CEILING), no --db;"
                + " tenants: tenant B's latency through postbox-server (one source, tenants a: ta_ and b: tb_, to NATS"
                + " JetStream) alone (baseline, the CEILING) and while tenant A drains a --backlog;"
                + " --wakeup off (polling only) | on (after-commit wakeRelays()) | notify (PostgreSQL NOTIFY/LISTEN)");
        return b.toString();
    }
}
