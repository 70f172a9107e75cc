package dev.postbox.console;

import dev.postbox.operations.Operator;

import java.util.Optional;

/**
 * Who sends a request: the console's authentication SPI. {@link ConsoleApi} asks it once per request, before
 * anything else; an empty answer is a 401 with {@link #challenge()} as {@code WWW-Authenticate}. Built in:
 * {@link BasicAuthenticator} (HTTP Basic over configured users). A framework supplies its own, e.g. one that
 * reads the current principal and its roles from Spring Security's context. Implementations are called from
 * many threads at once and must be thread-safe; they must not log credentials.
 */
@FunctionalInterface
public interface ConsoleAuthenticator {

    /** The operator {@code request} authenticates as, or empty when it carries no valid credentials. */
    Optional<Operator> authenticate(ConsoleRequest request);

    /**
     * The {@code WWW-Authenticate} value sent with a 401 (e.g. {@code Basic realm="Postbox"}), or null to send
     * none (for an authenticator whose login happens elsewhere). Default null.
     */
    default String challenge() {
        return null;
    }
}
