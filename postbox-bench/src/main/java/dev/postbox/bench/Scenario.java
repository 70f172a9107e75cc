package dev.postbox.bench;

/**
 * A subcommand that runs on a throw-away database of the shared services ({@link BenchContext}): prints
 * the database and the {@code CEILING} measured in the same run, then runs.
 */
interface Scenario extends Command {

    /** Connections of the application's pool (producers). */
    int poolSize(Options options);

    /**
     * Whether writers NOTIFY and relays LISTEN on PostgreSQL; default true, Postbox's own default (ignored on
     * the other databases).
     */
    default boolean notifications(Options options) {
        return true;
    }

    /** Runs on a fresh database whose ceiling was just measured. */
    Outcome run(BenchContext ctx, Options options, Ceiling.Result ceiling) throws Exception;

    @Override
    default Outcome run(Options options) throws Exception {
        try (BenchContext ctx = BenchContext.open(options.string("db"), poolSize(options), notifications(options))) {
            Fmt.line("DB kind=" + ctx.db.kind() + " name=" + ctx.db.name + " " + ctx.db.describe()
                    + " core=" + Bench.revision()
                    + " notify_listen=" + (ctx.notifications && ctx.db.kind().equals("postgres")));
            Fmt.line("NOTE " + CpuClock.EXPLAINED);
            long others = ctx.db.otherSessions();
            if (others > 0) {
                Fmt.line("WARN " + others + " other client sessions are connected to the server: they may skew timings"
                        + " and commit counts");
            }
            Ceiling.Result ceiling = Ceiling.measure(ctx.db);
            Fmt.line(ceiling.toString());
            return run(ctx, options, ceiling);
        }
    }
}
