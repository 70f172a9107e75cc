package dev.postbox.server;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The process tests' check of a broker's history refuses what it must and accepts redeliveries after a crash. */
class DeliveryHistoryTest {

    private static final List<String> WRITTEN = List.of("a-1", "a-2", "a-3", "b-1", "b-2");

    @Test
    void redeliveriesOfABatchSentBeforeACrashAreCountedNotRefused() {
        int duplicates = DeliveryHistory.assertAtLeastOnceInOrder("crash", WRITTEN,
                List.of("a-1", "b-1", "a-2", "a-3", "a-2", "a-3", "b-1", "b-2"));
        assertThat(duplicates).isEqualTo(3);
    }

    @Test
    void aLostEventIsRefused() {
        assertThatThrownBy(() -> DeliveryHistory.assertAtLeastOnceInOrder("lost", WRITTEN,
                List.of("a-1", "a-2", "a-3", "b-1"))).hasMessageContaining("lost events").hasMessageContaining("b-2");
    }

    @Test
    void anEventFirstArrivingAfterALaterOneOfItsAggregateIsRefused() {
        assertThatThrownBy(() -> DeliveryHistory.assertAtLeastOnceInOrder("reordered", WRITTEN,
                List.of("a-1", "a-3", "a-2", "b-1", "b-2"))).hasMessageContaining("out of their aggregate's order")
                .hasMessageContaining("a-2 (arrival 2) after a-3");
    }

    @Test
    void anEventNeverWrittenIsRefused() {
        assertThatThrownBy(() -> DeliveryHistory.assertAtLeastOnceInOrder("unknown", WRITTEN,
                List.of("a-1", "a-2", "a-3", "b-1", "b-2", "c-1"))).hasMessageContaining("received but never written");
    }
}
