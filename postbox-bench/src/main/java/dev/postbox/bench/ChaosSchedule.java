package dev.postbox.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

/**
 * When the faults of a chaos run happen, drawn from the run's seed: {@code kills} relay kills at uniformly
 * random times in 5%..85% of the producing window (each of a random relay), the database crash in
 * 30%..45% and the sink outage in 55%..70%, so they do not overlap and the last kill leaves producers
 * writing for a while.
 */
final class ChaosSchedule {

    enum Kind { KILL_RELAY, CRASH_DATABASE, SINK_OUTAGE }

    /** One fault: its time in ms after the producers started, and for a kill the relay's index. */
    record Fault(long atMs, Kind kind, int relay) {
    }

    private ChaosSchedule() {
    }

    static List<Fault> draw(long seed, long windowMs, int kills, int relays) {
        Random random = new Random(seed);
        List<Fault> faults = new ArrayList<>();
        for (int k = 0; k < kills; k++) {
            faults.add(new Fault(between(random, windowMs, 0.05, 0.85), Kind.KILL_RELAY, random.nextInt(relays)));
        }
        faults.add(new Fault(between(random, windowMs, 0.30, 0.45), Kind.CRASH_DATABASE, -1));
        faults.add(new Fault(between(random, windowMs, 0.55, 0.70), Kind.SINK_OUTAGE, -1));
        faults.sort(Comparator.comparingLong(Fault::atMs));
        return faults;
    }

    private static long between(Random random, long windowMs, double from, double to) {
        return (long) (windowMs * (from + (to - from) * random.nextDouble()));
    }
}
