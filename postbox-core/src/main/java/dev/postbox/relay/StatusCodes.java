package dev.postbox.relay;

import dev.postbox.outbox.OutboxStatus;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The {@code publish_status} codes the relay's SQL is written with, taken from {@link OutboxStatus#code()}
 * once, so that no statement carries a bare number whose meaning a reader must look up.
 */
final class StatusCodes {

    static final int PENDING = OutboxStatus.PENDING.code();
    static final int PUBLISHING = OutboxStatus.PUBLISHING.code();
    static final int PUBLISHED = OutboxStatus.PUBLISHED.code();
    static final int FAILED = OutboxStatus.FAILED.code();
    static final int DEAD = OutboxStatus.DEAD.code();

    /** The statuses that make later events of the aggregate wait: pending, publishing, failed, dead. */
    static final List<Integer> BLOCKING = List.of(PENDING, PUBLISHING, FAILED, DEAD);
    /** {@link #BLOCKING} as the items of an SQL IN list. */
    static final String BLOCKING_LIST = list(PENDING, PUBLISHING, FAILED, DEAD);
    /** The statuses a claim may take: pending, publishing (an expired lease), failed (a due retry). */
    static final String CLAIMABLE_LIST = list(PENDING, PUBLISHING, FAILED);

    private StatusCodes() {
    }

    /** {@code codes} as the items of an SQL IN list: {@code "0, 1, 3"}. */
    static String list(int... codes) {
        return Arrays.stream(codes).mapToObj(Integer::toString).collect(Collectors.joining(", "));
    }
}
