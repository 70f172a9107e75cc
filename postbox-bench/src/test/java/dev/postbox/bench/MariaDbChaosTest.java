package dev.postbox.bench;

/** The short chaos run on a private MariaDB server (crashed with {@code kill -9}). */
class MariaDbChaosTest extends ChaosContract {

    @Override
    String db() {
        return "mariadb";
    }
}
