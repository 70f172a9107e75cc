package dev.postbox.spring.autoconfigure;

import dev.postbox.Postbox;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A migration tool of the application's (Flyway, Liquibase) that brings Postbox's tables to this Postbox's version at start-up,
 * in a history of its own, instead of the programmatic installer.
 */
interface SchemaMigrations {

    /** Applies the migrations {@code postbox}'s tables lack; throws when the tool fails. */
    void migrate(Postbox postbox);

    /** The tool and its history table, for the start-up log and failure, e.g. {@code Flyway (history table x)}. */
    String describe(Postbox postbox);

    /**
     * Makes every {@link Postbox} bean of {@code beanFactory} depend on the beans named {@code runners} (the
     * application's own migration runners), so that the application's migrations run before Postbox's.
     */
    static void runPostboxAfter(ConfigurableListableBeanFactory beanFactory, List<String> runners) {
        if (runners.isEmpty()) {
            return;
        }
        for (String name : beanFactory.getBeanNamesForType(Postbox.class, true, false)) {
            BeanDefinition definition = beanFactory.getBeanDefinition(name);
            Set<String> dependsOn = new LinkedHashSet<>();
            if (definition.getDependsOn() != null) {
                dependsOn.addAll(List.of(definition.getDependsOn()));
            }
            dependsOn.addAll(runners);
            definition.setDependsOn(dependsOn.toArray(String[]::new));
        }
    }
}
