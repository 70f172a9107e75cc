package dev.postbox.internal;

import dev.postbox.common.ValidationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JsonTest {

    @ParameterizedTest
    @ValueSource(strings = {"{}", "[]", "\"text\"", "12.5", "true", "null", " {\"a\": [1, {\"b\": null}]} ",
            "{\"emoji\":\"\uD83D\uDE00\"}"})
    void acceptsAnySingleJsonValue(String json) {
        assertThatCode(() -> Json.requireValid("payload", json)).doesNotThrowAnyException();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "{", "{\"a\":}", "{'a':1}", "[1,]", "{} []", "tru", "{\"a\":1,\"a\":1}", "NaN"})
    void rejectsAnythingElseNamingTheField(String json) {
        assertThatThrownBy(() -> Json.requireValid("payload", json)).isInstanceOf(ValidationException.class)
                .hasMessageStartingWith("payload:");
    }

    @Test
    void reportsWhereTheJsonBreaks() {
        assertThatThrownBy(() -> Json.requireValid("payload", "{\n  \"a\": 1,\n  \"b\": ]\n}"))
                .hasMessageContaining("line 3");
    }

    @Test
    void headersRoundTripInOrderWithEscapes() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("z", "quote \" and \\ backslash");
        headers.put("a", "line\nbreak ✓");
        String json = Json.writeHeaders(headers);
        assertThat(Json.readHeaders(json)).containsExactlyEntriesOf(headers);
        assertThat(Json.readHeaders(null)).isEmpty();
    }

    @Test
    void utf8LengthCountsBytesWithoutEncoding() {
        for (String s : new String[] {"", "abc", "é", "✓", "\uD83D\uDE00", "a\uD83D\uDE00b"}) {
            assertThat(Check.utf8Length(s)).as(s).isEqualTo(s.getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
        }
    }

    @Test
    void rejectsPayloadWithAnUnpairedSurrogate() {
        assertThatThrownBy(() -> Check.json("payload", "\"a\uD800b\"", 100))
                .isInstanceOf(ValidationException.class).hasMessageContaining("unpaired surrogate at index 2");
        assertThatThrownBy(() -> Check.json("payload", "\"\uDE00\"", 100)).isInstanceOf(ValidationException.class);
        assertThatCode(() -> Check.json("payload", "\"\uD83D\uDE00\"", 100)).doesNotThrowAnyException();
    }

    @Test
    void clipKeepsTextWithinTheLimit() {
        assertThat(Check.clip("short", 10)).isEqualTo("short");
        assertThat(Check.clip("x".repeat(20), 10)).hasSize(10).endsWith("…");
        assertThat(Check.clip(null, 10)).isNull();
    }

    @Test
    void clipMakesTextStorableOnEveryDatabase() {
        assertThat(Check.clip("503: bad\0body", 100)).isEqualTo("503: bad\uFFFDbody");
        assertThat(Check.clip("a\u0001b\u001b[0m\u007f", 100)).isEqualTo("a\uFFFDb\uFFFD[0m\uFFFD");
        assertThat(Check.clip("kept:\tone\r\ntwo", 100)).isEqualTo("kept:\tone\r\ntwo");
        assertThat(Check.clip("cut \uD83D|\uDE00 half", 100)).isEqualTo("cut \uFFFD|\uFFFD half");
        assertThat(Check.clip("pair \uD83D\uDE00 kept", 100)).isEqualTo("pair \uD83D\uDE00 kept");
        assertThat(Check.storable("\0", 100)).isEqualTo("\uFFFD");
    }

    @Test
    void clipNeverCutsAnEmojiInHalf() {
        String clipped = Check.clip("ab" + "\uD83D\uDE00".repeat(10), 6);
        assertThat(clipped).isEqualTo("ab\uD83D\uDE00…");
        assertThat(clipped.length()).isLessThanOrEqualTo(6);
    }

    @Test
    void aJsonColumnsDepthLimitIsTheDialects() {
        String deep31 = "{\"a\":".repeat(30) + "[1]" + "}".repeat(30);
        String deep32 = "[" + deep31 + "]";
        assertThatCode(() -> Json.requireValid(dev.postbox.jdbc.Dialect.MYSQL, "payload", deep31)).doesNotThrowAnyException();
        assertThatThrownBy(() -> Json.requireValid(dev.postbox.jdbc.Dialect.MYSQL, "payload", deep32))
                .isInstanceOf(ValidationException.class).hasMessageContaining("nested 32 levels deep")
                .hasMessageContaining("at most 31");
        assertThatCode(() -> Json.requireValid(dev.postbox.jdbc.Dialect.POSTGRESQL, "payload", deep32)).doesNotThrowAnyException();
        assertThatThrownBy(() -> Json.requireValid(dev.postbox.jdbc.Dialect.MYSQL, "payload", deep31 + " x"))
                .isInstanceOf(ValidationException.class).hasMessageContaining("not valid JSON");
    }

    @Test
    void escapedLoneSurrogatesAndHugeExponentsAreRefusedWhereTheColumnRefusesThem() {
        assertThatThrownBy(() -> Json.requireValid(dev.postbox.jdbc.Dialect.H2, "payload", "[\"\\ud800\"]"))
                .isInstanceOf(ValidationException.class).hasMessageContaining("escaped unpaired surrogate");
        assertThatCode(() -> Json.requireValid(dev.postbox.jdbc.Dialect.POSTGRESQL, "payload", "[\"\\ud800\"]"))
                .doesNotThrowAnyException();
        assertThatCode(() -> Json.requireValid(dev.postbox.jdbc.Dialect.H2, "payload", "[\"\\ud83d\\ude00\"]"))
                .doesNotThrowAnyException();
        assertThatThrownBy(() -> Json.requireValid(dev.postbox.jdbc.Dialect.H2, "payload", "{\"n\":1.5e2147483648}"))
                .isInstanceOf(ValidationException.class).hasMessageContaining("1.5e2147483648");
        assertThatCode(() -> Json.requireValid(dev.postbox.jdbc.Dialect.MYSQL, "payload", "1e2147483648")).doesNotThrowAnyException();
        assertThatCode(() -> Json.requireValid(dev.postbox.jdbc.Dialect.H2, "payload", "12345678901234567890123456789"))
                .doesNotThrowAnyException();
    }

    @Test
    void dialectsCountTextAsTheirColumnsDo() {
        String emoji64 = "\uD83D\uDE00".repeat(64);
        assertThatCode(() -> Check.key(dev.postbox.jdbc.Dialect.POSTGRESQL, "eventNo", emoji64, 64)).doesNotThrowAnyException();
        assertThatCode(() -> Check.key(dev.postbox.jdbc.Dialect.MYSQL, "eventNo", emoji64, 64)).doesNotThrowAnyException();
        assertThatThrownBy(() -> Check.key(dev.postbox.jdbc.Dialect.H2, "eventNo", emoji64, 64))
                .isInstanceOf(ValidationException.class).hasMessageContaining("UTF-16 code units").hasMessageContaining("(was 128)");
        assertThatThrownBy(() -> Check.key(dev.postbox.jdbc.Dialect.MYSQL, "eventNo", "A ", 64))
                .isInstanceOf(ValidationException.class).hasMessageContaining("whitespace");
    }

    @Test
    void timesOutsideAColumnsRangeAreClampedToIt() {
        java.time.Instant far = java.time.Instant.parse("+12000-01-01T00:00:00Z");
        assertThat(dev.postbox.jdbc.Dialect.MYSQL.storableTime(far)).isEqualTo(java.time.Instant.parse("9999-12-31T23:59:59.999Z"));
        assertThat(dev.postbox.jdbc.Dialect.POSTGRESQL.storableTime(far)).isEqualTo(far);
        assertThat(dev.postbox.jdbc.Dialect.H2.storableTime(java.time.Instant.MAX)).isEqualTo(dev.postbox.jdbc.Dialect.H2.latestTime());
        assertThat(dev.postbox.jdbc.Dialect.MYSQL.storableTime(java.time.Instant.MIN)).isEqualTo(dev.postbox.jdbc.Dialect.MYSQL.earliestTime());
        assertThat(dev.postbox.jdbc.Dialect.MYSQL.storableTime(null)).isNull();
        assertThat(Instants.plus(java.time.Instant.EPOCH, java.time.Duration.ofSeconds(Long.MAX_VALUE))).isEqualTo(java.time.Instant.MAX);
        assertThat(Instants.minus(java.time.Instant.EPOCH, java.time.Duration.ofSeconds(Long.MAX_VALUE))).isEqualTo(java.time.Instant.MIN);
    }
}
