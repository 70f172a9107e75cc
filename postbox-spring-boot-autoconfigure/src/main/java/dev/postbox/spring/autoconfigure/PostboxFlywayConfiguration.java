package dev.postbox.spring.autoconfigure;

import dev.postbox.Postbox;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;

import javax.sql.DataSource;
import java.util.ArrayList;
import java.util.List;

/**
 * With Flyway on the class path and {@code spring.flyway.enabled} not false, Postbox's tables are migrated through
 * Flyway ({@link FlywaySchemaMigrations}: a history table of their own) under the default
 * {@code postbox.schema.mode=embedded} ({@code always} keeps Postbox's installer, {@code never} installs nothing);
 * the {@link Postbox} bean then waits for the application's own Flyway migration, so that the application's first
 * migration meets the schema it expects and not Postbox's tables.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = "org.flywaydb.core.Flyway")
@ConditionalOnProperty(prefix = "spring.flyway", name = "enabled", havingValue = "true", matchIfMissing = true)
class PostboxFlywayConfiguration {

    /** Boot's bean that runs the application's migrations: its package on Boot 3.5, then on Boot 4.0. */
    private static final String[] MIGRATION_INITIALIZERS = {
            "org.springframework.boot.autoconfigure.flyway.FlywayMigrationInitializer",
            "org.springframework.boot.flyway.autoconfigure.FlywayMigrationInitializer"};

    @Bean
    SchemaMigrations postboxFlywayMigrations(DataSource dataSource) {
        return new FlywaySchemaMigrations(dataSource);
    }

    @Bean
    static BeanFactoryPostProcessor postboxAfterApplicationMigrations() {
        return PostboxFlywayConfiguration::dependOnApplicationMigrations;
    }

    /** Makes every {@link Postbox} bean depend on Boot's Flyway migration initializers, where there are any. */
    static void dependOnApplicationMigrations(ConfigurableListableBeanFactory beanFactory) {
        ClassLoader loader = beanFactory.getBeanClassLoader();
        List<String> initializers = new ArrayList<>();
        for (String type : MIGRATION_INITIALIZERS) {
            if (ClassUtils.isPresent(type, loader)) {
                initializers.addAll(List.of(beanFactory.getBeanNamesForType(ClassUtils.resolveClassName(type, loader),
                        true, false)));
            }
        }
        SchemaMigrations.runPostboxAfter(beanFactory, initializers);
    }
}
