package dev.postbox.console;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What {@link ConsoleApi} answers: an adapter writes the status, every header (the content type and the
 * security headers among them) and the body as they are.
 *
 * @param status  the HTTP status
 * @param headers response headers, content type included; never null
 * @param body    the body; never null (empty for none)
 */
public record ConsoleResponse(int status, Map<String, String> headers, byte[] body) {

    public ConsoleResponse {
        headers = headers == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(headers));
        body = body == null ? new byte[0] : body;
    }

    /** The {@code Content-Type} header, or null. */
    public String contentType() {
        return headers.get("Content-Type");
    }

    /** The body as UTF-8 text. */
    public String text() {
        return new String(body, StandardCharsets.UTF_8);
    }
}
