package dev.postbox.internal.poll;

import dev.postbox.testing.TestDatabase;

/** In a session time zone with daylight saving: expiry is judged on the database's clock whatever the session says. */
class PostgresJobLeaseTest extends JobLeaseContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.postgres("America/New_York");
    }
}
