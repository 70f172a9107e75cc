package dev.postbox.bench;

import java.util.List;
import java.util.function.LongFunction;

/**
 * Waits for one drain of every source of {@code scripts/bench server}: a source is drained at the first moment its
 * receiver has all of its {@code perSource} events and its outbox has no row left that is not PUBLISHED (checked only
 * once everything arrived, so the polling costs the databases nothing during the drain). Prints a PROGRESS line every
 * {@value Progress#EVERY_MS} ms; gives up when nothing arrives for {@code stallMillis}, at {@code timeoutMillis} after
 * the start, or when {@code problem} (given the events delivered so far) reports one (a replica process that died).
 */
final class SourcesDrain {

    /** When each source was drained, in seconds after the start (NaN: not drained), and whether all were. */
    record Result(boolean complete, double[] sourceSeconds) {

        /** Until the last source was drained. */
        double seconds() {
            double max = 0;
            for (double s : sourceSeconds) {
                max = Math.max(max, s);
            }
            return max;
        }
    }

    private SourcesDrain() {
    }

    static Result await(List<ServerSources.Source> sources, List<Receiver> receivers, int perSource, long startNanos,
                        long stallMillis, long timeoutMillis, LongFunction<String> problem) throws InterruptedException {
        double[] done = new double[sources.size()];
        java.util.Arrays.fill(done, Double.NaN);
        int left = sources.size();
        long lastCount = -1;
        long lastChange = System.nanoTime();
        long reportedCount = 0;
        long reportedAt = startNanos;
        long nextReport = startNanos + Progress.EVERY_MS * 1_000_000L;
        while (true) {
            long now = System.nanoTime();
            long count = 0;
            for (int i = 0; i < sources.size(); i++) {
                long received = receivers.get(i).distinct();
                count += received;
                if (Double.isNaN(done[i]) && received >= perSource && sources.get(i).unpublished() == 0) {
                    done[i] = (System.nanoTime() - startNanos) / 1e9;
                    left--;
                }
            }
            if (left == 0) {
                return new Result(true, done);
            }
            String why = problem.apply(count);
            if (why != null) {
                Fmt.line("FAILED " + why + " at " + state(sources, receivers));
                return new Result(false, done);
            }
            if (now - startNanos > timeoutMillis * 1_000_000L) {
                Fmt.line("TIMEOUT after " + timeoutMillis / 1000 + " s at " + state(sources, receivers));
                return new Result(false, done);
            }
            if (count != lastCount) {
                lastCount = count;
                lastChange = now;
            } else if (now - lastChange > stallMillis * 1_000_000L) {
                Fmt.line("STALL nothing arrived for " + stallMillis + " ms at " + state(sources, receivers));
                return new Result(false, done);
            }
            if (now >= nextReport) {
                Fmt.line("PROGRESS t=" + Fmt.two((now - startNanos) / 1e9) + "s " + state(sources, receivers)
                        + " window_eps=" + Fmt.rate((count - reportedCount) / ((now - reportedAt) / 1e9)));
                reportedCount = count;
                reportedAt = now;
                nextReport = now + Progress.EVERY_MS * 1_000_000L;
            }
            Thread.sleep(5);
        }
    }

    private static String state(List<ServerSources.Source> sources, List<Receiver> receivers) {
        StringBuilder b = new StringBuilder("delivered");
        for (int i = 0; i < sources.size(); i++) {
            b.append(' ').append(sources.get(i).name()).append('=').append(receivers.get(i).distinct());
        }
        return b.toString();
    }
}
