package dev.postbox.spring.autoconfigure.endpoint;

import dev.postbox.testing.TestDatabase;

class H2PostboxEndpointTest extends PostboxEndpointContract {
    @Override
    protected TestDatabase database() {
        return TestDatabase.h2();
    }
}
