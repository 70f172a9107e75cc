/**
 * Retention: keeps Postbox's tables small by removing finished rows after a per-table, per-status
 * retention, deleted or moved to the {@code *_archive} twins in bounded batches, never touching an
 * unfinished row. Start with {@code postbox.retention(RetentionPolicy.builder()...build())}.
 */
package dev.postbox.retention;
