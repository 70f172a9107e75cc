package dev.postbox.message;

import dev.postbox.common.PostboxException;

import java.time.Duration;

/**
 * An event stayed PROCESSING longer than the stuck timeout (its worker crashed, hung or lost its
 * database connection); recorded as a failed attempt when another worker recovers it.
 */
public final class StuckEventException extends PostboxException {

    StuckEventException(MessageRecord event, Duration stuckTimeout) {
        super("event " + event.eventNo() + " stuck in PROCESSING since " + event.lastHandleTime()
                + " (stuck timeout " + stuckTimeout + ")");
    }
}
