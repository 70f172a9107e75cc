package dev.postbox.nats;

import dev.postbox.spi.PublishResult;
import io.nats.client.JetStreamApiException;

import java.io.IOException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;

/** What a failed JetStream publish means for the event: DEAD only when retrying cannot help. */
final class Outcomes {

    /** JetStream's API error for a message above the stream's {@code max_msg_size}. */
    static final int MESSAGE_TOO_LARGE = 10054;

    private Outcomes() {
    }

    static PublishResult of(String subject, Throwable error) {
        Throwable e = unwrap(error);
        String message = String.valueOf(e.getMessage());
        if (e instanceof IOException && message.contains("503")) {
            return PublishResult.dead("no JetStream stream captures subject '" + subject + "' (" + message + ")");
        }
        if (e instanceof IllegalArgumentException) {
            // raised before sending: a body above the server's max payload, a control line too long
            return PublishResult.dead("NATS refused the message for subject '" + subject + "': " + message);
        }
        if (e instanceof TimeoutException || e instanceof CancellationException) {
            return PublishResult.retry("no JetStream ack for subject '" + subject + "' in time (connection down or server busy)");
        }
        if (e instanceof JetStreamApiException api && api.getApiErrorCode() == MESSAGE_TOO_LARGE) {
            // larger than the stream's max_msg_size: the same message is refused every time
            return PublishResult.dead("JetStream refused subject '" + subject + "': " + api.getErrorCode()
                    + "/" + api.getApiErrorCode() + " " + api.getErrorDescription() + " (larger than the stream takes)");
        }
        if (e instanceof JetStreamApiException api) {
            return PublishResult.retry("JetStream refused subject '" + subject + "': " + api.getErrorCode()
                    + "/" + api.getApiErrorCode() + " " + api.getErrorDescription());
        }
        return PublishResult.retry(e.getClass().getSimpleName() + " publishing to '" + subject + "': " + message);
    }

    private static Throwable unwrap(Throwable error) {
        Throwable e = error;
        while ((e instanceof CompletionException || e.getClass() == RuntimeException.class) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }
}
