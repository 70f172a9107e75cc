package dev.postbox.test;

import dev.postbox.Postbox;
import dev.postbox.message.MessageWorkerBuilder;
import dev.postbox.relay.RelayBuilder;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A JUnit 5 extension that gives each test a Postbox on a {@link TestClock}, a {@link RecordingPublisher}, a
 * {@link RelayDriver} for a relay publishing through it, and an {@link InvariantChecker}, all reset before every
 * test: the clock back to its start, the publisher as new, Postbox's tables emptied. Test methods (and lifecycle
 * methods) may declare parameters of those types, of {@link Postbox} and of {@link DataSource}.
 *
 * <pre>{@code
 * @ExtendWith(PostboxExtension.class)                 // an in-memory H2 database of its own (H2 on the class path)
 * class CheckoutTest {
 *     @Test
 *     void publishesOnceAfterAFailure(Postbox postbox, DataSource db, RecordingPublisher publisher, RelayDriver relay) { ... }
 * }
 *
 * @RegisterExtension                                  // or on the test's own database, with settings
 * static PostboxExtension postbox = PostboxExtension.builder().dataSource(() -> dataSource)
 *         .relay(r -> r.batchSize(10)).build();
 * }</pre>
 *
 * Registered on the class ({@code @ExtendWith}, or a static {@code @RegisterExtension} field) the Postbox, schema and
 * relay live for the test class and are closed after it; as an instance field they live for one test. The data source
 * is asked for at the first test (so a static field may name one a {@code @BeforeAll} method creates); without one the
 * extension opens an in-memory H2 database ({@code jdbc:h2:mem:postbox_test_<random>}) and shuts it down at the end.
 * Not for tests running in parallel within one class.
 */
public final class PostboxExtension implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback,
        AfterEachCallback, ParameterResolver {

    /** Where the test clock stands at the start of every test unless {@link Builder#start} says otherwise. */
    public static final Instant DEFAULT_START = Instant.parse("2030-01-01T00:00:00Z");

    private final Builder config;
    private final TestClock clock;
    private final RecordingPublisher publisher = new RecordingPublisher();
    private boolean classScoped;
    private DataSource dataSource;
    private UrlDataSource ownH2;
    private Postbox postbox;
    private RelayDriver driver;

    /** The extension with every default: in-memory H2, schema installed, the relay's defaults. */
    public PostboxExtension() {
        this(new Builder());
    }

    private PostboxExtension(Builder config) {
        this.config = config;
        this.clock = TestClock.at(config.start);
    }

    /** Starts configuring an extension for a {@code @RegisterExtension} field. */
    public static Builder builder() {
        return new Builder();
    }

    /** The test clock of the Postbox. */
    public TestClock clock() {
        return clock;
    }

    /** The publisher the relay publishes through. */
    public RecordingPublisher publisher() {
        return publisher;
    }

    /** The Postbox on the test clock (made at first use). */
    public Postbox postbox() {
        start();
        return postbox;
    }

    /** The database the Postbox works on. */
    public DataSource dataSource() {
        start();
        return dataSource;
    }

    /** The driver of the relay (and worker, if configured). */
    public RelayDriver driver() {
        start();
        return driver;
    }

    /** An invariant checker comparing the database with the publisher's deliveries. */
    public InvariantChecker checker() {
        return InvariantChecker.of(postbox(), dataSource()).withDeliveries(publisher);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        classScoped = true;
    }

    @Override
    public void afterAll(ExtensionContext context) {
        stop();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        boolean fresh = postbox == null;
        start();
        clock.set(config.start);
        publisher.reset();
        if (!fresh && config.cleanBetweenTests) {
            emptyTables();
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (!classScoped) {
            stop();
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == TestClock.class || type == RecordingPublisher.class || type == RelayDriver.class
                || type == Postbox.class || type == InvariantChecker.class || type == DataSource.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        if (type == TestClock.class) {
            return clock;
        }
        if (type == RecordingPublisher.class) {
            return publisher;
        }
        if (type == RelayDriver.class) {
            return driver();
        }
        if (type == Postbox.class) {
            return postbox();
        }
        if (type == InvariantChecker.class) {
            return checker();
        }
        return dataSource();
    }

    private synchronized void start() {
        if (postbox != null) {
            return;
        }
        if (config.dataSource != null) {
            dataSource = Objects.requireNonNull(config.dataSource.get(), "the data source supplier answered null");
        } else {
            String name = "postbox_test_" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36)
                    .toLowerCase(Locale.ROOT);
            dataSource = ownH2 = new UrlDataSource("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1", "sa");
            try (Connection c = ownH2.getConnection()) {
                c.isValid(1);
            } catch (SQLException e) {
                throw new IllegalStateException("PostboxExtension: no data source given and the in-memory H2 database"
                        + " could not be opened (add com.h2database:h2 to the test class path, or give a data source"
                        + " with PostboxExtension.builder().dataSource(...)): " + e.getMessage(), e);
            }
        }
        Postbox.Builder b = Postbox.builder(dataSource);
        config.postbox.accept(b);
        postbox = b.clock(clock).build();
        if (config.installSchema) {
            postbox.schema().install();
        }
        RelayDriver.Builder d = RelayDriver.builder(postbox, dataSource, publisher).clock(clock).relay(config.relay)
                .maxCycles(config.maxCycles);
        if (config.worker != null) {
            d.worker(config.worker);
        }
        driver = d.build();
    }

    private synchronized void stop() {
        try {
            if (driver != null) {
                driver.close();
            }
        } finally {
            driver = null;
            postbox = null;
            if (ownH2 != null) {
                try (Connection c = ownH2.getConnection(); Statement st = c.createStatement()) {
                    st.execute("SHUTDOWN");
                } catch (SQLException e) {
                    // already gone: nothing left to release
                }
                ownH2 = null;
            }
            dataSource = null;
        }
    }

    /** Empties every Postbox table a test fills, in one transaction. */
    private void emptyTables() {
        var t = postbox.tables();
        List<String> tables = List.of(t.outbox(), t.message(), t.consumeLog(), t.compensationLog(), t.eventAttempt(),
                t.outboxArchive(), t.messageArchive(), t.adminLog());
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            for (String table : tables) {
                st.execute("DELETE FROM " + table);
            }
            c.commit();
            c.setAutoCommit(autoCommit);
        } catch (SQLException e) {
            throw new IllegalStateException("PostboxExtension: emptying Postbox's tables failed: " + e.getMessage(), e);
        }
    }

    /** Configures a {@link PostboxExtension}; not thread-safe. */
    public static final class Builder {
        private Supplier<? extends DataSource> dataSource;
        private Consumer<Postbox.Builder> postbox = b -> { };
        private Consumer<RelayBuilder> relay = b -> { };
        private Consumer<MessageWorkerBuilder> worker;
        private Instant start = DEFAULT_START;
        private boolean installSchema = true;
        private boolean cleanBetweenTests = true;
        private int maxCycles = RelayDriver.DEFAULT_MAX_CYCLES;

        private Builder() {
        }

        /** The database, asked for at the first test; default: an in-memory H2 database of the extension's own. */
        public Builder dataSource(Supplier<? extends DataSource> dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
            return this;
        }

        /** Settings of the Postbox (table prefix, source, ...); its clock is always the extension's test clock. */
        public Builder postbox(Consumer<Postbox.Builder> settings) {
            this.postbox = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /** Settings of the driven relay ({@link RelayDriver.Builder#relay}); default the relay's defaults. */
        public Builder relay(Consumer<RelayBuilder> settings) {
            this.relay = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /** Also drives a message-event worker with these handlers ({@link RelayDriver.Builder#worker}); default none. */
        public Builder worker(Consumer<MessageWorkerBuilder> handlers) {
            this.worker = Objects.requireNonNull(handlers, "handlers");
            return this;
        }

        /** Where the test clock stands at the start of every test; default {@link PostboxExtension#DEFAULT_START}. */
        public Builder start(Instant start) {
            this.start = Objects.requireNonNull(start, "start");
            return this;
        }

        /** Whether to install Postbox's schema (idempotent) before the first test; default true. */
        public Builder installSchema(boolean installSchema) {
            this.installSchema = installSchema;
            return this;
        }

        /** Whether to empty Postbox's tables before every test after the first; default true. */
        public Builder cleanBetweenTests(boolean cleanBetweenTests) {
            this.cleanBetweenTests = cleanBetweenTests;
            return this;
        }

        /** The drains' cycle bound ({@link RelayDriver.Builder#maxCycles}). */
        public Builder maxCycles(int maxCycles) {
            this.maxCycles = maxCycles;
            return this;
        }

        /** The extension, for a {@code @RegisterExtension} field. */
        public PostboxExtension build() {
            return new PostboxExtension(this);
        }
    }
}
