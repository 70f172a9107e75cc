package dev.postbox.internal.poll;

import dev.postbox.testing.TestDatabase;

class PostgresVersionedClaimTest extends VersionedClaimContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres(null);
    }
}
