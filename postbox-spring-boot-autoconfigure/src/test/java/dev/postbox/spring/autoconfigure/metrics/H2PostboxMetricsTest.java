package dev.postbox.spring.autoconfigure.metrics;

import dev.postbox.testing.TestDatabase;

class H2PostboxMetricsTest extends PostboxMetricsContract {
    @Override
    protected TestDatabase database() {
        return TestDatabase.h2();
    }
}
