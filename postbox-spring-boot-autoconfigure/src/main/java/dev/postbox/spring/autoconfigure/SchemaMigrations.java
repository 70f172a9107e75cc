package dev.postbox.spring.autoconfigure;

import dev.postbox.Postbox;

/**
 * A migration tool of the application's (Flyway) that brings Postbox's tables to this Postbox's version at start-up,
 * in a history of its own, instead of the programmatic installer.
 */
interface SchemaMigrations {

    /** Applies the migrations {@code postbox}'s tables lack; throws when the tool fails. */
    void migrate(Postbox postbox);

    /** The tool and its history table, for the start-up log and failure, e.g. {@code Flyway (history table x)}. */
    String describe(Postbox postbox);
}
