package dev.postbox.internal.poll;

import dev.postbox.testing.TestDatabase;

class H2JobLeaseTest extends JobLeaseContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }
}
