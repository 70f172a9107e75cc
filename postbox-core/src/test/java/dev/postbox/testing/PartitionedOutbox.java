package dev.postbox.testing;

import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;

/**
 * Runs a {@link DatabaseContract} on the time-partitioned outbox (retention's partitions strategy): before the
 * first test the empty outbox is converted to daily partitions two days ahead; before every test the key table is
 * emptied too, since the contract empties the outbox between tests and the event_nos it held would stay known.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(PartitionedOutbox.Conversion.class)
public @interface PartitionedOutbox {

    /** The extension behind the annotation. */
    final class Conversion implements BeforeEachCallback {
        @Override
        public void beforeEach(ExtensionContext context) throws Exception {
            DatabaseContract contract = (DatabaseContract) context.getRequiredTestInstance();
            if (!contract.postbox.outboxPartitions().partitioned()) {
                contract.postbox.outboxPartitions().convert(Duration.ofDays(1), Duration.ofDays(2));
                if (!contract.postbox.outboxPartitions().partitioned()) {
                    throw new IllegalStateException("the outbox was not converted to the partitioned variant");
                }
            }
            contract.exec("DELETE FROM " + contract.postbox.tables().outbox() + "_key");
        }
    }
}
