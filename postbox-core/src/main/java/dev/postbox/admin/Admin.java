package dev.postbox.admin;

/**
 * What a person does to events the machine gave up on: retry them (DEAD or FAILED becomes PENDING with
 * its retry count reset, so it gets a full set of retries) or cancel them (PENDING, FAILED or DEAD
 * becomes CANCELLED, which also unblocks the later events of its aggregate). Each change is one
 * conditional UPDATE in its own transaction, together with a row in {@code biz_admin_log} naming who,
 * when and why; an event in any other status is left alone. Thread-safe.
 */
public interface Admin {

    /** Retries the outbox event {@code eventNo}; false if it does not exist or is not DEAD or FAILED. */
    boolean retry(String eventNo, String actor, String reason);

    /** Cancels the outbox event {@code eventNo}; false if it does not exist or is not PENDING, FAILED or DEAD. */
    boolean cancel(String eventNo, String actor, String reason);

    /** Retries up to {@code filter.limit()} matching DEAD or FAILED events; returns how many changed. */
    int retryWhere(AdminFilter filter, String actor, String reason);

    /** Cancels up to {@code filter.limit()} matching PENDING, FAILED or DEAD events; returns how many changed. */
    int cancelWhere(AdminFilter filter, String actor, String reason);
}
