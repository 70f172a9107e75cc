package dev.postbox.console;

import dev.postbox.testing.TestDatabase;

/** On H2, and in a JVM whose default time zone is not UTC (the API's instants must not depend on it). */
class H2ConsoleApiTest extends ConsoleApiContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }

    @Override
    protected String jvmTimeZone() {
        return "America/New_York";
    }
}
