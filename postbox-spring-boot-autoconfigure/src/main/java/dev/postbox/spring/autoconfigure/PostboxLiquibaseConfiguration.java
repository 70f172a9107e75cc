package dev.postbox.spring.autoconfigure;

import dev.postbox.Postbox;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.NoneNestedConditions;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;

import javax.sql.DataSource;
import java.util.List;

/**
 * With Liquibase on the class path, {@code spring.liquibase.enabled} not false and no Flyway in use (Flyway, when both
 * are there, keeps Postbox's migrations: {@link PostboxFlywayConfiguration}), Postbox's tables are migrated through
 * Liquibase ({@link LiquibaseSchemaMigrations}: a change log table of their own) under the default
 * {@code postbox.schema.mode=embedded}; the {@link Postbox} bean then waits for the application's own Liquibase
 * ({@code SpringLiquibase} beans), so that the application's change log meets the schema it expects first.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = "liquibase.Liquibase")
@ConditionalOnProperty(prefix = "spring.liquibase", name = "enabled", havingValue = "true", matchIfMissing = true)
@Conditional(PostboxLiquibaseConfiguration.FlywayNotUsed.class)
class PostboxLiquibaseConfiguration {

    private static final String SPRING_LIQUIBASE = "liquibase.integration.spring.SpringLiquibase";

    @Bean
    SchemaMigrations postboxLiquibaseMigrations(DataSource dataSource) {
        return new LiquibaseSchemaMigrations(dataSource);
    }

    @Bean
    static BeanFactoryPostProcessor postboxAfterApplicationLiquibase() {
        return PostboxLiquibaseConfiguration::dependOnApplicationLiquibase;
    }

    /** Makes every {@link Postbox} bean depend on the application's {@code SpringLiquibase} beans, where there are any. */
    static void dependOnApplicationLiquibase(ConfigurableListableBeanFactory beanFactory) {
        ClassLoader loader = beanFactory.getBeanClassLoader();
        if (!ClassUtils.isPresent(SPRING_LIQUIBASE, loader)) {
            return;
        }
        List<String> runners = List.of(beanFactory.getBeanNamesForType(ClassUtils.resolveClassName(SPRING_LIQUIBASE, loader),
                true, false));
        SchemaMigrations.runPostboxAfter(beanFactory, runners);
    }

    /** Matches unless {@link PostboxFlywayConfiguration} applies (Flyway present and not disabled). */
    static final class FlywayNotUsed extends NoneNestedConditions {

        FlywayNotUsed() {
            super(ConfigurationPhase.PARSE_CONFIGURATION);
        }

        @ConditionalOnClass(name = "org.flywaydb.core.Flyway")
        @ConditionalOnProperty(prefix = "spring.flyway", name = "enabled", havingValue = "true", matchIfMissing = true)
        static final class FlywayUsed {
        }
    }
}
