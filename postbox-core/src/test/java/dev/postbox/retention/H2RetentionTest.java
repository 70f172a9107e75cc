package dev.postbox.retention;

import dev.postbox.common.ValidationException;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class H2RetentionTest extends RetentionContract {
    @Override
    protected TestDatabase newDatabase() {
        return TestDatabase.h2();
    }

    @Override
    protected void assertReadsByPrimaryKey(String plan) {
        assertThat(plan).as(plan).containsIgnoringCase("PRIMARY_KEY").doesNotContainIgnoringCase("tableScan");
    }

    @Test
    void h2HasNoTimePartitions() {
        RetentionPolicy policy = RetentionPolicy.builder().outbox(OutboxStatus.PUBLISHED, Duration.ofDays(7))
                .partitions(RetentionTable.OUTBOX).build();
        assertThatThrownBy(() -> postbox.retention(policy).build())
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("outbox.strategy"))
                .hasMessageContaining("h2 has no time partitions");
        assertThat(postbox.outboxPartitions().partitioned()).isFalse();
        assertThat(postbox.outboxPartitions().list()).isEmpty();
        assertThat(postbox.outboxPartitions().runway()).isNull();
        assertThatThrownBy(() -> postbox.outboxPartitions().convert(Duration.ofDays(1), Duration.ofDays(7)))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("outbox.strategy"));
    }
}
