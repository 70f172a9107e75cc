package dev.postbox.bench;

import dev.postbox.server.PostboxServerCommand;

/**
 * A replica of {@code scripts/bench server}: {@code postbox-server} itself ({@link PostboxServerCommand}, here
 * {@code run FILE}) on the bench's class path, plus one thing: it halts as soon as its standard input closes, which
 * the bench holds open, so that no replica outlives a bench stopped even by {@code kill -9}. The bench stops it with
 * SIGTERM, the server's own graceful shutdown.
 */
final class ServerReplica {

    /** The line {@code postbox-server run} prints once its relays and health endpoint are up. */
    static final String RUNNING = "postbox-server running";

    private ServerReplica() {
    }

    public static void main(String[] args) {
        ChaosRole.watchParent();
        PostboxServerCommand.main(args);
    }
}
