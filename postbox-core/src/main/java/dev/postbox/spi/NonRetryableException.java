package dev.postbox.spi;

/** Thrown (or used as a cause) by a publisher when retrying cannot help: the event goes DEAD at once. */
public class NonRetryableException extends RuntimeException {

    public NonRetryableException(String message) {
        super(message);
    }

    public NonRetryableException(String message, Throwable cause) {
        super(message, cause);
    }
}
