package dev.postbox.message;

import dev.postbox.common.PostboxException;

import java.time.Duration;

/** A message handler ran longer than the worker's handler timeout; recorded as a retryable failure. */
public final class HandlerTimeoutException extends PostboxException {

    HandlerTimeoutException(MessageRecord event, Duration timeout) {
        super("handler of " + event.eventType() + " timed out after " + timeout + " on event " + event.eventNo());
    }
}
