package dev.postbox.spring.autoconfigure;

import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ApplicationContext;

import java.util.Map;

/**
 * Spring Boot 4.0's side of the context tests: the auto-configurations they start, now in Boot 4's own modules
 * (spring-boot-jdbc, -transaction, -hibernate, -micrometer-metrics), and the health API of spring-boot-health.
 * The Boot 3.5 twin of this class is {@code ../src/test/boot-3.5/java/.../BootLine.java}; both have the same
 * members, so the auto-configuration module's test classes compile and run unchanged on each line.
 */
public final class BootLine {

    /** The Boot line these tests run on. */
    public static final String VERSION = "4.0";

    public static final Class<?> DATA_SOURCE = DataSourceAutoConfiguration.class;
    public static final Class<?> DATA_SOURCE_TRANSACTION_MANAGER = DataSourceTransactionManagerAutoConfiguration.class;
    public static final Class<?> JDBC_TEMPLATE = JdbcTemplateAutoConfiguration.class;
    public static final Class<?> TRANSACTION = TransactionAutoConfiguration.class;
    public static final Class<?> HIBERNATE_JPA = HibernateJpaAutoConfiguration.class;
    /** Boot's Flyway auto-configuration: the application's own migrations ({@code spring.flyway.*}). */
    public static final Class<?> FLYWAY = org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration.class;
    /** Boot's Liquibase auto-configuration: the application's own change log ({@code spring.liquibase.*}). */
    public static final Class<?> LIQUIBASE = org.springframework.boot.liquibase.autoconfigure.LiquibaseAutoConfiguration.class;
    /** Boot's Micrometer Observation auto-configuration: the registry, its handlers grouped as Boot groups them. */
    public static final Class<?> OBSERVATION = org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration.class;
    /** Boot's Micrometer Tracing auto-configuration: the tracing observation handlers for the application's Tracer. */
    public static final Class<?> MICROMETER_TRACING = org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration.class;
    /** Boot's Micrometer auto-configuration, which binds the {@code MeterBinder} beans to the registry. */
    public static final Class<?> METRICS = MetricsAutoConfiguration.class;

    /** The embedded servlet web server (Tomcat) as Boot configures it: {@code server.port}, {@code server.address}. */
    public static final Class<?> SERVLET_WEB_SERVER = org.springframework.boot.tomcat.autoconfigure.servlet.TomcatServletWebServerAutoConfiguration.class;
    /** Spring Security's servlet auto-configurations: the default chain, the user details, the filter's registration. */
    public static final Class<?>[] SECURITY = {org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration.class, org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration.class, org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration.class, org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterAutoConfiguration.class};

    /** A servlet web application context that starts a real embedded server on refresh, for WebApplicationContextRunner. */
    public static org.springframework.web.context.ConfigurableWebApplicationContext servletWebServerContext() {
        return new org.springframework.boot.web.server.servlet.context.AnnotationConfigServletWebServerApplicationContext();
    }

    /** The port the context's embedded web server listens on. */
    public static int port(ApplicationContext context) {
        return ((org.springframework.boot.web.server.context.WebServerApplicationContext) context).getWebServer().getPort();
    }

    private BootLine() {
    }

    /** The health the bean {@code beanName}, a {@code HealthIndicator} of this line's API, reports now. */
    public static Health health(ApplicationContext context, String beanName) {
        org.springframework.boot.health.contributor.Health h = context.getBean(beanName, HealthIndicator.class).health();
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

        public static final Object UP = org.springframework.boot.health.contributor.Status.UP;
        public static final Object DOWN = org.springframework.boot.health.contributor.Status.DOWN;

        private Status() {
        }
    }
}
