package dev.postbox.internal.poll;

import dev.postbox.testing.TestDatabase;

class H2VersionedClaimTest extends VersionedClaimContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }
}
