package dev.postbox.nats;

import dev.postbox.spi.PublishResult;
import io.nats.client.JetStreamApiException;

import java.io.IOException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;

/** What a failed JetStream publish means for the event: DEAD only when retrying cannot help. */
final class Outcomes {

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
