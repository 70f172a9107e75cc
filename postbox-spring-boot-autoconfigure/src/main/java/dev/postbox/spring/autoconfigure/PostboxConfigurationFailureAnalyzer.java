package dev.postbox.spring.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a start-up stopped by a contradictory Postbox set-up ({@link PostboxConfigurationException}) as Boot's
 * "APPLICATION FAILED TO START": what clashes, then how to resolve it. Registered in
 * {@code META-INF/spring.factories}; the same class on Boot 3.5 and 4.0.
 */
class PostboxConfigurationFailureAnalyzer extends AbstractFailureAnalyzer<PostboxConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, PostboxConfigurationException cause) {
        return new FailureAnalysis(cause.description(), cause.action(), cause);
    }
}
