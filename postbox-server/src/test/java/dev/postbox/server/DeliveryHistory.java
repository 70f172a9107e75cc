package dev.postbox.server;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/** The check of what a broker delivered against what was written, event numbers {@code AGGREGATE-SEQ}. */
final class DeliveryHistory {

    private DeliveryHistory() {
    }

    /**
     * Asserts the history of one broker: every written event received at least once, nothing received that was not
     * written, and per aggregate, with duplicates removed keeping each first arrival, the numbers strictly increasing.
     * A duplicate may arrive after a later event of its aggregate: a server that died after sending 72..76 of one
     * aggregate in one batch, before recording them, leaves 72..76 to be sent again, so a consumer sees 72..76 72..76
     * (at least once; consumers deduplicate by event number). Those are counted in the summary, not refused. Returns
     * the number of duplicates (arrivals beyond the first of an event).
     */
    static int assertAtLeastOnceInOrder(String what, List<String> written, List<String> received) {
        Set<String> distinct = new LinkedHashSet<>(received);
        int duplicates = received.size() - distinct.size();
        Set<String> missing = new LinkedHashSet<>(written);
        missing.removeAll(distinct);
        Set<String> unknown = new LinkedHashSet<>(distinct);
        unknown.removeAll(new LinkedHashSet<>(written));
        List<String> reordered = new ArrayList<>();
        int lateDuplicates = 0;
        Map<String, Integer> highest = new TreeMap<>();
        Set<String> seen = new LinkedHashSet<>();
        for (int i = 0; i < received.size(); i++) {
            String no = received.get(i);
            String aggregate = no.substring(0, no.lastIndexOf('-'));
            int seq = Integer.parseInt(no.substring(no.lastIndexOf('-') + 1));
            int before = highest.getOrDefault(aggregate, 0);
            if (seen.add(no)) {
                if (seq <= before) {
                    reordered.add(no + " (arrival " + i + ") after " + aggregate + "-" + before);
                }
                highest.put(aggregate, Math.max(before, seq));
            } else if (seq < before) {
                lateDuplicates++;
            }
        }
        String summary = what + ": " + written.size() + " written, " + received.size() + " received, " + duplicates
                + " duplicates (" + lateDuplicates + " of them after a later event of their aggregate)";
        assertThat(missing).as(summary + ": lost events").isEmpty();
        assertThat(unknown).as(summary + ": received but never written").isEmpty();
        assertThat(reordered).as(summary + ": first arrivals out of their aggregate's order").isEmpty();
        System.out.println(summary);
        return duplicates;
    }
}
