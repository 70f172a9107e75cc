/**
 * The one polling engine of Postbox's background jobs (relay, message worker, compensation job, and the
 * jobs to come): {@link dev.postbox.internal.poll.PollLoop} (threads, idle back-off, wake-ups, close that
 * joins), {@link dev.postbox.internal.poll.Pools} (a job's own small pool),
 * {@link dev.postbox.internal.poll.Transactions} (short transactions, serialized claims where a dialect
 * needs them), {@link dev.postbox.internal.poll.Failures}, and the claim and the fence of a job's rows:
 * {@link dev.postbox.internal.poll.VersionedClaim} (one way per database, chosen once, on the
 * {@link dev.postbox.internal.poll.ClaimSpec} the job builds for its table and status enum) and
 * {@link dev.postbox.internal.poll.Fence} (writes that name the version the claim produced). Internal: not
 * a public API.
 */
package dev.postbox.internal.poll;
