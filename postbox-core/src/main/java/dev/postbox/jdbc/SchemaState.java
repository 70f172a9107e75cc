package dev.postbox.jdbc;

import java.util.List;

/**
 * The Postbox tables of one database as {@link Schema#inspect()} found them, against what this version of Postbox
 * expects. Immutable.
 *
 * @param database        the database in words: product, catalog and schema, and its JDBC URL without parameters,
 *                        e.g. {@code PostgreSQL 15.8, database test, schema public (jdbc:postgresql://db:5432/test)}
 * @param foundVersion    the schema version found: the highest one recorded in {@link TableNames#schemaHistory()},
 *                        or, where nothing is recorded, the last version whose tables all exist (0: none)
 * @param versionRecorded whether {@code foundVersion} was read from the version table rather than inferred
 * @param expectedVersion the version this Postbox installs and expects ({@link Schema#scripts()}' last)
 * @param missingTables   the tables Postbox uses that the database does not have, with the configured prefix, in
 *                        the order the scripts create them; empty when all exist
 * @param pendingScripts  the class path resources of this dialect's scripts that are not applied yet, e.g.
 *                        {@code db/postbox/postgresql/V9__schema_version.sql} (the files name the tables with
 *                        the default prefix {@code biz_}; {@link Schema#scripts()} renders them for another)
 */
public record SchemaState(String database, int foundVersion, boolean versionRecorded, int expectedVersion,
                          List<String> missingTables, List<String> pendingScripts) {

    public SchemaState {
        missingTables = List.copyOf(missingTables);
        pendingScripts = List.copyOf(pendingScripts);
    }

    /**
     * Whether every table exists and the recorded version is this Postbox's or newer (a newer Postbox's tables
     * only ever gained columns, tables and indexes this one does not use).
     */
    public boolean current() {
        return missingTables.isEmpty() && versionRecorded && foundVersion >= expectedVersion;
    }
}
