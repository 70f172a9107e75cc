package dev.postbox.compensation;

import dev.postbox.internal.Features;

/** Registers how {@code Postbox} makes this package's features ({@link Features}). */
final class Wiring {

    static {
        Features.provide(Compensations.class, Void.class, (settings, none) -> new JdbcCompensations(settings));
        // the argument: {bizType, actionType}
        Features.provide(CompensationJob.Builder.class, String[].class, (settings, keys) ->
                new CompensationJob.Builder(settings, new JdbcCompensations(settings), keys[0], keys[1]));
    }

    private Wiring() {
    }
}
