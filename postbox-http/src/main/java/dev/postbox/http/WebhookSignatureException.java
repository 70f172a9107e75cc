package dev.postbox.http;

import dev.postbox.common.PostboxException;

/** A webhook whose {@code Postbox-Signature} is missing, malformed, wrong or out of the time window; answer 401. */
public final class WebhookSignatureException extends PostboxException {

    public WebhookSignatureException(String message) {
        super(message);
    }
}
