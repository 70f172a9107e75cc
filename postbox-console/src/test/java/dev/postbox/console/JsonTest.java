package dev.postbox.console;

import dev.postbox.common.ValidationException;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JsonTest {

    record Inner(String name, Instant at) {
    }

    record Outer(long id, Inner inner, List<Integer> numbers, Map<String, String> map, Optional<String> maybe,
                 Thread.State state, Double nan) {
    }

    @Test
    void writesRecordsByTheirComponentsInDeclarationOrder() {
        Map<String, String> map = new LinkedHashMap<>();
        map.put("b", "2");
        map.put("a", null);
        String json = Json.write(new Outer(7, new Inner("x", Instant.parse("2026-01-02T03:04:05.678Z")), List.of(1, 2),
                map, Optional.empty(), Thread.State.RUNNABLE, Double.NaN));
        assertThat(json).isEqualTo("{\"id\":7,\"inner\":{\"name\":\"x\",\"at\":\"2026-01-02T03:04:05.678Z\"},"
                + "\"numbers\":[1,2],\"map\":{\"b\":\"2\",\"a\":null},\"maybe\":null,\"state\":\"RUNNABLE\",\"nan\":null}");
    }

    @Test
    void escapesWhatCouldEndAStringOrBeReadAsMarkup() {
        assertThat(Json.write("a\"b\\c\n\t\u0001</script>&\u2028"))
                .isEqualTo("\"a\\\"b\\\\c\\n\\t\\u0001\\u003c/script\\u003e\\u0026\\u2028\"");
        assertThat(Json.write("emoji 😀 and lone \ud800")).isEqualTo("\"emoji 😀 and lone \\ud800\"");
    }

    @Test
    void readsWhatItWritesBack() {
        String text = "{\"s\":\"a\\u00e9\\n😀\",\"n\":-12,\"big\":12345678901234567890,\"f\":1.5e3,\"t\":true,"
                + "\"nul\":null,\"arr\":[1,[2,{}]],\"o\":{\"k\":\"v\"}}";
        Map<String, Object> m = Json.parseObject(text);
        assertThat(m.get("s")).isEqualTo("aé\n😀");
        assertThat(m.get("n")).isEqualTo(-12L);
        assertThat(m.get("big")).isEqualTo(1.2345678901234567E19);
        assertThat(m.get("f")).isEqualTo(1500.0);
        assertThat(m.get("t")).isEqualTo(true);
        assertThat(m).containsEntry("nul", null);
        assertThat(m.get("arr")).isEqualTo(List.of(1L, List.of(2L, Map.of())));
        assertThat(Json.parse(Json.write(m))).isEqualTo(m);
    }

    @Test
    void refusesWhatIsNotStrictJsonNamingTheBody() {
        for (String bad : new String[] {"", "{", "{\"a\":1,}", "{'a':1}", "[1 2]", "{\"a\":01}", "{\"a\":1} x",
                "{\"a\":\"\u0001\"}", "{\"a\":1,\"a\":2}", "nul", "{\"a\":-}", "\"\\x\"", "{\"a\":1.}", "1e"}) {
            assertThatThrownBy(() -> Json.parse(bad)).as(bad).isInstanceOfSatisfying(ValidationException.class,
                    e -> assertThat(e.field()).isEqualTo("body"));
        }
        assertThatThrownBy(() -> Json.parseObject("[1]")).hasMessageContaining("must be a JSON object");
    }

    @Test
    void refusesNestingDeeperThanTheLimit() {
        String deep = "[".repeat(Json.MAX_DEPTH + 2) + "]".repeat(Json.MAX_DEPTH + 2);
        assertThatThrownBy(() -> Json.parse(deep)).hasMessageContaining("nested deeper than " + Json.MAX_DEPTH);
        String ok = "[".repeat(Json.MAX_DEPTH) + "]".repeat(Json.MAX_DEPTH);
        assertThat(Json.parse(ok)).isInstanceOf(List.class);
    }
}
