package dev.postbox.common;

import java.util.Objects;

/**
 * Bad input, found before any SQL ran: nothing was written and the caller's transaction is untouched.
 * {@link #field()} names the offending field (for a batch, with its index, e.g. {@code events[3].payload})
 * and the message states the limit that was broken.
 */
public final class ValidationException extends PostboxException {

    private final String field;

    public ValidationException(String field, String problem) {
        super(Objects.requireNonNull(field, "field") + ": " + problem);
        this.field = field;
    }

    /** The field or setting that was rejected, never null. */
    public String field() {
        return field;
    }

    /** The same problem, reported for {@code prefix + "." + field()} (used for batch elements). */
    public ValidationException within(String prefix) {
        String problem = getMessage().substring(field.length() + 2);
        ValidationException wrapped = new ValidationException(prefix + "." + field, problem);
        wrapped.setStackTrace(getStackTrace());
        return wrapped;
    }
}
