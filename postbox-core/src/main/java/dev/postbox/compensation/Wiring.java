package dev.postbox.compensation;

import dev.postbox.internal.Features;

/** Registers how {@code Postbox} makes this package's features ({@link Features}). */
final class Wiring {

    static {
        Features.provide(Compensations.class, Void.class, (settings, none) -> new JdbcCompensations(settings));
        // the argument: {bizType, actionType, the CompensationListener}
        Features.provide(CompensationJob.Builder.class, Object[].class, (settings, args) ->
                new CompensationJob.Builder(settings, new JdbcCompensations(settings), (String) args[0],
                        (String) args[1], (CompensationListener) args[2]));
    }

    private Wiring() {
    }
}
