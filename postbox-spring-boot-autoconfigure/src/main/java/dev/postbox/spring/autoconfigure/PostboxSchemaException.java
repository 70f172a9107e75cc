package dev.postbox.spring.autoconfigure;

import dev.postbox.common.PostboxException;
import dev.postbox.jdbc.SchemaState;

/**
 * The start-up found Postbox's tables missing or older than this Postbox: nothing has used them yet. Carries what
 * is wrong ({@link #description()}: the tables, the version, the database) and what to do ({@link #action()}: the
 * property value that installs them, or the migrations to run), which {@link PostboxSchemaFailureAnalyzer} shows
 * as Spring Boot's failure report.
 */
final class PostboxSchemaException extends PostboxException {

    private final transient SchemaState state;
    private final String description;
    private final String action;

    PostboxSchemaException(SchemaState state, String description, String action) {
        super(description + " " + action);
        this.state = state;
        this.description = description;
        this.action = action;
    }

    SchemaState state() {
        return state;
    }

    String description() {
        return description;
    }

    String action() {
        return action;
    }
}
