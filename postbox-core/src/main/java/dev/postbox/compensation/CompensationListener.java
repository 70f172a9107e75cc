package dev.postbox.compensation;

/**
 * Told of every run of a {@link CompensationJob} (metrics of seed 003's success rate), on the job's thread right
 * after the run; must be quick, and what it throws is logged and ignored. Set once per Postbox
 * ({@code Postbox.builder(...).compensationListener(...)}), it hears every job built from that Postbox.
 * Thread-safe implementations only. {@link #NOOP} does nothing.
 */
@FunctionalInterface
public interface CompensationListener {

    /** Hears nothing. */
    CompensationListener NOOP = (job, run) -> { };

    /** {@code job} ran once and did {@code run}. */
    void ran(CompensationJob job, CompensationJob.Run run);
}
