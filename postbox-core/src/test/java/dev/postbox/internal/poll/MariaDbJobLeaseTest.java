package dev.postbox.internal.poll;

import dev.postbox.testing.TestDatabase;

/** In a session time zone of +05:30: expiry is judged on the database's UTC clock whatever the session says. */
class MariaDbJobLeaseTest extends JobLeaseContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.mariadb("+05:30");
    }
}
