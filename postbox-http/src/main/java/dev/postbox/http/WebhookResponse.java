package dev.postbox.http;

/**
 * What the receiving HTTP server should answer to a webhook.
 *
 * @param status  the HTTP status: 200 (ran or duplicate), 400, 401, 405, 413, 500 or 503
 * @param message a short plain-text body; never the payload
 */
public record WebhookResponse(int status, String message) {

    /** True for 2xx: the sender will not send this event again. */
    public boolean accepted() {
        return status / 100 == 2;
    }
}
