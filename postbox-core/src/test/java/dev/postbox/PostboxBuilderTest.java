package dev.postbox;

import dev.postbox.common.ValidationException;
import dev.postbox.jdbc.Dialect;
import dev.postbox.jdbc.TableNames;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PostboxBuilderTest {

    private static JdbcDataSource h2() {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:builder-test");
        return ds;
    }

    @ParameterizedTest
    @ValueSource(strings = {"Biz_", "1biz_", "biz-", "biz_;drop table x;--", "biz ", "bïz_", "_biz", "a_very_long_prefix_"})
    void rejectsATablePrefixThatIsNotAPlainIdentifier(String prefix) {
        assertThatThrownBy(() -> Postbox.builder(h2()).tablePrefix(prefix).build())
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("tablePrefix"))
                .hasMessageContaining(prefix.length() > 16 ? "at most 16 characters" : "[a-z][a-z0-9_]*");
    }

    @Test
    void acceptsPlainPrefixesIncludingNone() {
        assertThat(new TableNames("").outbox()).isEqualTo("outbox_event");
        assertThat(new TableNames("shop2_").message()).isEqualTo("shop2_message_event");
        assertThat(TableNames.defaults().outboxArchive()).isEqualTo("biz_outbox_event_archive");
        assertThatThrownBy(() -> new TableNames(null)).isInstanceOf(ValidationException.class);
    }

    @Test
    void rejectsOutOfRangeSettingsNamingThem() {
        assertThatThrownBy(() -> Postbox.builder(h2()).maxPayloadBytes(0).build())
                .isInstanceOf(ValidationException.class).hasMessageStartingWith("maxPayloadBytes:");
        assertThatThrownBy(() -> Postbox.builder(h2()).maxHeadersBytes(-5).build())
                .isInstanceOf(ValidationException.class).hasMessageStartingWith("maxHeadersBytes:");
        assertThatThrownBy(() -> Postbox.builder(h2()).source(" padded").build())
                .isInstanceOf(ValidationException.class).hasMessageStartingWith("source:");
        assertThatThrownBy(() -> Postbox.builder(h2()).notifyInterval(java.time.Duration.ofMillis(-1)).build())
                .isInstanceOf(ValidationException.class).hasMessageStartingWith("notifyInterval:")
                .hasMessageContaining("between 0 and 1 s");
        assertThatThrownBy(() -> Postbox.builder(h2()).notifyInterval(java.time.Duration.ofMillis(1001)).build())
                .isInstanceOf(ValidationException.class).hasMessageStartingWith("notifyInterval:");
        assertThat(Postbox.builder(h2()).notifyInterval(java.time.Duration.ZERO).build()).isNotNull();
    }

    @Test
    void detectsTheDialectOrTakesTheOverride() {
        assertThat(Postbox.builder(h2()).build().dialect()).isSameAs(Dialect.H2);
        assertThat(Postbox.builder(h2()).dialect(Dialect.POSTGRESQL).build().dialect()).isSameAs(Dialect.POSTGRESQL);
    }
}
