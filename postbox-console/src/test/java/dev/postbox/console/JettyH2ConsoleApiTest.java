package dev.postbox.console;

import dev.postbox.testing.TestDatabase;

/** The whole API contract through {@link ConsoleServlet} in an embedded Jetty 12, on H2. */
class JettyH2ConsoleApiTest extends ConsoleApiContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }

    @Override
    protected Endpoint serve(ConsoleApi api) {
        return new JettyServlet(api);
    }
}
