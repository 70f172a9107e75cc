package dev.postbox.cli;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JsonTest {

    @Test
    void readsWhatItWritesWithKeyOrderAndExactNumbers() {
        String text = "{\"b\":1,\"a\":[true,false,null,-12.50,9223372036854775807,18446744073709551616],"
                + "\"s\":\"q\\\"\\\\\\n\\t\\u00e9/\",\"o\":{}}";
        Object doc = Json.parse(text);
        assertThat(List.copyOf(((Map<?, ?>) doc).keySet())).isEqualTo(List.of("b", "a", "s", "o"));
        List<?> a = (List<?>) ((Map<?, ?>) doc).get("a");
        assertThat(a.get(3)).isEqualTo(new BigDecimal("-12.50"));
        assertThat(a.get(4)).isEqualTo(Long.MAX_VALUE);
        assertThat(a.get(5)).isEqualTo(new BigDecimal("18446744073709551616"));
        assertThat(((Map<?, ?>) doc).get("s")).isEqualTo("q\"\\\n\té/");
        assertThat(Json.parse(Json.write(doc))).isEqualTo(doc);
    }

    @Test
    void writesControlCharactersEscaped() {
        assertThat(Json.write("a\u0001b\rc")).isEqualTo("\"a\\u0001b\\rc\"");
        assertThat(Json.write(Map.of())).isEqualTo("{}");
        assertThat(Json.write(List.of())).isEqualTo("[]");
    }

    @Test
    void refusesWhatIsNotOneDocument() {
        assertThatThrownBy(() -> Json.parse("{} {}")).hasMessageContaining("text after the document");
        assertThatThrownBy(() -> Json.parse("{\"a\":}")).hasMessageContaining("offset 5");
        assertThatThrownBy(() -> Json.parse("[1,")).hasMessageContaining("unexpected end");
        assertThatThrownBy(() -> Json.parse("\"open")).hasMessageContaining("unterminated string");
        assertThatThrownBy(() -> Json.parse("<html>")).isInstanceOf(IllegalArgumentException.class);
    }
}
