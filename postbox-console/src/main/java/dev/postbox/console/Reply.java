package dev.postbox.console;

import java.nio.charset.StandardCharsets;

/** What a route answers before the pipeline adds the security headers: a status, a content type, a body. */
record Reply(int status, String contentType, byte[] body, String cacheControl) {

    static final String JSON = "application/json; charset=utf-8";

    static Reply json(int status, Object value) {
        return new Reply(status, JSON, Json.write(value).getBytes(StandardCharsets.UTF_8), "no-store");
    }

    static Reply ok(Object value) {
        return json(200, value);
    }
}
