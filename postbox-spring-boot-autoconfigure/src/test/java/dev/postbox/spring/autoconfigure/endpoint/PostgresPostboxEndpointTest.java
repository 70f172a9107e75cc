package dev.postbox.spring.autoconfigure.endpoint;

import dev.postbox.testing.TestDatabase;

class PostgresPostboxEndpointTest extends PostboxEndpointContract {
    @Override
    protected TestDatabase database() {
        return TestDatabase.postgres(null);
    }
}
