package dev.postbox.internal.poll;

import dev.postbox.testing.TestDatabase;

class MariaDbVersionedClaimTest extends VersionedClaimContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb(null);
    }
}
