package dev.postbox.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * {@code scripts/bench <drain|latency|steady> [--option value ...]}: runs one scenario on a throw-away
 * database and prints, on stdout, {@code PARAMS}, the database, the {@code CEILING} measured in the same
 * run, progress, and last the {@code RESULT} line. Logs go to stderr. Exit code 0 when every check
 * passed, 1 when a check failed or the run broke, 2 for a bad command line.
 */
public final class Bench {

    private static final List<Scenario> SCENARIOS = List.of(new DrainBench(), new LatencyBench(), new SteadyBench());

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

    private static int run(String[] args) throws Exception {
        if (args.length == 0 || args[0].equals("--help") || args[0].equals("-h")) {
            System.out.println(usage());
            return args.length == 0 ? 2 : 0;
        }
        Scenario scenario = SCENARIOS.stream().filter(s -> s.name().equals(args[0])).findFirst()
                .orElseThrow(() -> new UsageException("unknown command '" + args[0] + "'"));
        Options options = Options.parse(Arrays.asList(args).subList(1, args.length), scenario.defaults());
        BenchDatabase.kind(options.string("db"));
        scenario.validate(options);
        Fmt.line("PARAMS scenario=" + scenario.name() + " " + options.describe());
        Scenario.Outcome outcome;
        try (BenchContext ctx = BenchContext.open(options.string("db"), scenario.poolSize(options),
                scenario.notifications(options))) {
            Fmt.line("DB kind=" + ctx.db.kind() + " name=" + ctx.db.name + " " + ctx.db.describe()
                    + " core=" + System.getProperty("postbox.bench.revision", "?")
                    + " notify_listen=" + (ctx.notifications && ctx.db.kind().equals("postgres")));
            long others = ctx.db.otherSessions();
            if (others > 0) {
                Fmt.line("WARN " + others + " other client sessions are connected to the server: they may skew timings"
                        + " and commit counts");
            }
            Ceiling.Result ceiling = Ceiling.measure(ctx.db);
            Fmt.line(ceiling.toString());
            outcome = scenario.run(ctx, options, ceiling);
        }
        Fmt.line(outcome.result());
        return outcome.ok() ? 0 : 1;
    }

    private static String usage() {
        StringBuilder b = new StringBuilder("usage: scripts/bench <command> [--option value ...]\n");
        for (Scenario s : SCENARIOS) {
            b.append("  ").append(s.name());
            for (Map.Entry<String, String> e : s.defaults().entrySet()) {
                b.append(" [--").append(e.getKey()).append(' ').append(e.getValue()).append(']');
            }
            b.append('\n');
        }
        b.append("  --db postgres|mariadb|h2; --sink null|kafka|rabbitmq|nats|http (kafka: an in-process KRaft broker;"
                + " rabbitmq, nats: the local services; http: a local JDK HttpServer);"
                + " drain --history H first leaves H already-published rows;"
                + " --wakeup off (polling only) | on (after-commit wakeRelays()) | notify (PostgreSQL NOTIFY/LISTEN)");
        return b.toString();
    }
}
