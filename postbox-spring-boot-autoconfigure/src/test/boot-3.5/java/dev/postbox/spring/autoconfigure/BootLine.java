package dev.postbox.spring.autoconfigure;

import org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.JdbcTemplateAutoConfiguration;
import org.springframework.boot.autoconfigure.orm.jpa.HibernateJpaAutoConfiguration;
import org.springframework.boot.autoconfigure.transaction.TransactionAutoConfiguration;
import org.springframework.context.ApplicationContext;

import java.util.Map;

/**
 * Spring Boot 3.5's side of the context tests: the Boot auto-configurations they start and the health API they
 * read, which Boot 4 moved to other packages and modules. Each Boot line has its own {@code BootLine} with these
 * members (this one in {@code src/test/boot-3.5/java}, Boot 4.0's in the {@code boot-4.0} module), so the same test
 * classes compile and run on both without importing a line's classes themselves.
 */
public final class BootLine {

    /** The Boot line these tests run on. */
    public static final String VERSION = "3.5";

    public static final Class<?> DATA_SOURCE = DataSourceAutoConfiguration.class;
    public static final Class<?> DATA_SOURCE_TRANSACTION_MANAGER = DataSourceTransactionManagerAutoConfiguration.class;
    public static final Class<?> JDBC_TEMPLATE = JdbcTemplateAutoConfiguration.class;
    public static final Class<?> TRANSACTION = TransactionAutoConfiguration.class;
    public static final Class<?> HIBERNATE_JPA = HibernateJpaAutoConfiguration.class;
    /** Boot's Flyway auto-configuration: the application's own migrations ({@code spring.flyway.*}). */
    public static final Class<?> FLYWAY = org.springframework.boot.autoconfigure.flyway.FlywayAutoConfiguration.class;
    /** Boot's Liquibase auto-configuration: the application's own change log ({@code spring.liquibase.*}). */
    public static final Class<?> LIQUIBASE = org.springframework.boot.autoconfigure.liquibase.LiquibaseAutoConfiguration.class;
    /** Boot's Micrometer Observation auto-configuration: the registry, its handlers grouped as Boot groups them. */
    public static final Class<?> OBSERVATION = org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration.class;
    /** Boot's Micrometer Tracing auto-configuration: the tracing observation handlers for the application's Tracer. */
    public static final Class<?> MICROMETER_TRACING = org.springframework.boot.actuate.autoconfigure.tracing.MicrometerTracingAutoConfiguration.class;
    /** Boot's Micrometer auto-configuration, which binds the {@code MeterBinder} beans to the registry. */
    public static final Class<?> METRICS = MetricsAutoConfiguration.class;

    /** The embedded servlet web server (Tomcat) as Boot configures it: {@code server.port}, {@code server.address}. */
    public static final Class<?> SERVLET_WEB_SERVER = org.springframework.boot.autoconfigure.web.servlet.ServletWebServerFactoryAutoConfiguration.class;
    /** Spring Security's servlet auto-configurations: the default chain, the user details, the filter's registration. */
    public static final Class<?>[] SECURITY = {org.springframework.boot.autoconfigure.security.servlet.SecurityAutoConfiguration.class, org.springframework.boot.autoconfigure.security.servlet.UserDetailsServiceAutoConfiguration.class, org.springframework.boot.autoconfigure.security.servlet.SecurityFilterAutoConfiguration.class};

    /** A servlet web application context that starts a real embedded server on refresh, for WebApplicationContextRunner. */
    public static org.springframework.web.context.ConfigurableWebApplicationContext servletWebServerContext() {
        return new org.springframework.boot.web.servlet.context.AnnotationConfigServletWebServerApplicationContext();
    }

    /** The port the context's embedded web server listens on. */
    public static int port(ApplicationContext context) {
        return ((org.springframework.boot.web.context.WebServerApplicationContext) context).getWebServer().getPort();
    }

    private BootLine() {
    }

    /** The health the bean {@code beanName}, a {@code HealthIndicator} of this line's API, reports now. */
    public static Health health(ApplicationContext context, String beanName) {
        org.springframework.boot.actuate.health.Health h = context.getBean(beanName, HealthIndicator.class).health();
        return new Health(h.getStatus(), h.getDetails());
    }

    /** One reading of a health indicator: this line's status object and the details, read as on the line's own type. */
    public record Health(Object status, Map<String, Object> details) {

        public Object getStatus() {
            return status;
        }

        public Map<String, Object> getDetails() {
            return details;
        }
    }

    /** This line's health statuses, to compare {@link Health#getStatus()} with. */
    public static final class Status {

        public static final Object UP = org.springframework.boot.actuate.health.Status.UP;
        public static final Object DOWN = org.springframework.boot.actuate.health.Status.DOWN;

        private Status() {
        }
    }
}
