package dev.postbox.common;

/**
 * Base of every exception Postbox throws. Unchecked: the caller's transaction decides what a failure
 * means. Messages carry the state that explains the failure, never an event's payload.
 */
public class PostboxException extends RuntimeException {

    public PostboxException(String message) {
        super(message);
    }

    public PostboxException(String message, Throwable cause) {
        super(message, cause);
    }
}
