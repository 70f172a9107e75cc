package dev.postbox.bench;

/** The short chaos run on a private PostgreSQL cluster (crashed with {@code pg_ctl stop -m immediate}). */
class PostgresChaosTest extends ChaosContract {

    @Override
    String db() {
        return "postgres";
    }
}
