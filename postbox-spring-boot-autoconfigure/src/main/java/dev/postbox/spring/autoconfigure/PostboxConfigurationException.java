package dev.postbox.spring.autoconfigure;

import dev.postbox.common.PostboxException;

/**
 * The application's Postbox set-up contradicts itself (two handlers for one event type, a channel routed to two
 * publishers, a relay with nothing to publish to): found at start-up, before anything runs. Carries what is wrong
 * and what to do apart, which {@link PostboxConfigurationFailureAnalyzer} shows as Spring Boot's failure report.
 */
final class PostboxConfigurationException extends PostboxException {

    private final String description;
    private final String action;

    /** {@code description} names what clashes; {@code action} is one sentence saying how to resolve it. */
    PostboxConfigurationException(String description, String action) {
        super(description + ". " + action);
        this.description = description;
        this.action = action;
    }

    String description() {
        return description + ".";
    }

    String action() {
        return action;
    }
}
