package dev.postbox.operations;

import dev.postbox.internal.Features;
import dev.postbox.query.Queries;

/** Registers how {@code Postbox} makes this package's features ({@link Features}). */
final class Wiring {

    static {
        Features.provide(Operations.class, OperationsConfig.class, (settings, config) ->
                new JdbcOperations(settings, Features.make(Queries.class, settings), config));
    }

    private Wiring() {
    }
}
