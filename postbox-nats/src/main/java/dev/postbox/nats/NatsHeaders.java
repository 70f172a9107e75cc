package dev.postbox.nats;

import dev.postbox.spi.Envelope;
import io.nats.client.impl.Headers;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The envelope in NATS headers. NATS header values are US-ASCII without CR or LF and an empty value is
 * dropped, so a value outside that (a non-ASCII aggregate id, a multi-line own header, an empty one) is
 * carried as an RFC 2047 encoded word {@code =?UTF-8?B?<base64>?=} and decoded again on the consuming side.
 */
final class NatsHeaders {

    /** JetStream's deduplication header; carries the event number. */
    static final String MSG_ID = "Nats-Msg-Id";
    private static final String WORD_START = "=?UTF-8?B?";
    private static final String WORD_END = "?=";

    private NatsHeaders() {
    }

    /**
     * The envelope's headers plus {@code Nats-Msg-Id}.
     *
     * @throws IllegalArgumentException an own header name NATS cannot carry (outside printable ASCII, or a colon)
     */
    static Headers of(Envelope envelope) {
        Headers h = new Headers();
        envelope.toHeaders().forEach((name, value) -> h.put(name, encode(value)));
        h.put(MSG_ID, msgId(envelope.eventNo()));
        return h;
    }

    /**
     * The {@code Nats-Msg-Id} of an event: its event_no, encoded like any header value when it is not plain
     * ASCII (deterministic, so JetStream still drops a second copy).
     */
    static String msgId(String eventNo) {
        return encode(eventNo);
    }

    /** Flat headers of a delivery, decoded; the first value of a repeated name wins; NATS' own headers left out. */
    static Map<String, String> toMap(Headers headers) {
        Map<String, String> flat = new LinkedHashMap<>();
        if (headers == null) {
            return flat;
        }
        for (String name : headers.keySet()) {
            if (name.startsWith("Nats-")) {
                continue;
            }
            List<String> values = headers.get(name);
            if (values != null && !values.isEmpty()) {
                flat.put(name, decode(values.get(0)));
            }
        }
        return flat;
    }

    static String encode(String value) {
        if (value == null) {
            return null;
        }
        if (value.isEmpty() || value.startsWith(WORD_START) || !plainAscii(value)) {
            return WORD_START + Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8)) + WORD_END;
        }
        return value;
    }

    static String decode(String value) {
        if (value != null && value.startsWith(WORD_START) && value.endsWith(WORD_END)
                && value.length() >= WORD_START.length() + WORD_END.length()) {
            String base64 = value.substring(WORD_START.length(), value.length() - WORD_END.length());
            try {
                return new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException notOurs) {
                return value;
            }
        }
        return value;
    }

    private static boolean plainAscii(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c > 127 || c == '\r' || c == '\n') {
                return false;
            }
        }
        return true;
    }
}
