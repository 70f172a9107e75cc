package dev.postbox.spring.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a start-up stopped by a missing or old Postbox schema as Boot's "APPLICATION FAILED TO START" with one
 * description (the tables, the version, the database) and one action (the property value that installs them, or the
 * migrations to run). Registered in {@code META-INF/spring.factories}; the same class on Boot 3.5 and 4.0.
 */
class PostboxSchemaFailureAnalyzer extends AbstractFailureAnalyzer<PostboxSchemaException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, PostboxSchemaException cause) {
        return new FailureAnalysis(cause.description(), cause.action(), cause);
    }
}
