/**
 * The one polling engine of Postbox's background jobs (relay, message worker, compensation job, and the
 * jobs to come): {@link dev.postbox.internal.poll.PollLoop} (threads, idle back-off, wake-ups, close that
 * joins), {@link dev.postbox.internal.poll.Pools} (a job's own small pool),
 * {@link dev.postbox.internal.poll.Transactions} (short transactions, serialized claims where a dialect
 * needs them) and {@link dev.postbox.internal.poll.Failures}. Internal: not a public API.
 */
package dev.postbox.internal.poll;
