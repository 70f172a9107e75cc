package dev.postbox.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Kill to flowing again: per kill, until every event the killed relay held leased was delivered after
 * the kill (by the relay that took its lease over; the killed one may have sent it already).
 */
record KillToFlowing(int measured, long p50, long max) {

    /** A relay kill: when, which incarnation, and the events it held leased then (null: not measurable). */
    record Kill(long atMs, String instance, List<String> leased) {
    }

    static KillToFlowing of(List<Kill> kills, List<DeliveryLog.Delivery> log) {
        Map<String, List<Long>> deliveries = new HashMap<>();
        for (DeliveryLog.Delivery d : log) {
            deliveries.computeIfAbsent(d.eventNo(), k -> new ArrayList<>()).add(d.receivedMs());
        }
        List<Long> times = new ArrayList<>();
        for (Kill k : kills) {
            if (k.leased() == null || k.leased().isEmpty()) {
                continue; // the database was down, or the relay held nothing
            }
            long last = -1;
            for (String e : k.leased()) {
                long after = deliveries.getOrDefault(e, List.of()).stream().mapToLong(Long::longValue)
                        .filter(t -> t >= k.atMs()).min().orElse(-1);
                if (after < 0) {
                    last = -1;
                    break; // never delivered again after the kill: counted as lost by the checker
                }
                last = Math.max(last, after);
            }
            if (last >= 0) {
                times.add(last - k.atMs());
            }
        }
        times.sort(Comparator.naturalOrder());
        return times.isEmpty() ? new KillToFlowing(0, -1, -1)
                : new KillToFlowing(times.size(), times.get(times.size() / 2), times.get(times.size() - 1));
    }
}
