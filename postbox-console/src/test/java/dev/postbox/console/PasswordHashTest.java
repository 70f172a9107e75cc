package dev.postbox.console;

import dev.postbox.common.ValidationException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PasswordHashTest {

    @Test
    void verifiesTheRightPasswordOnlyWithASaltOfItsOwn() {
        String a = PasswordHash.create("correct horse".toCharArray(), PasswordHash.MIN_ITERATIONS);
        String b = PasswordHash.create("correct horse".toCharArray(), PasswordHash.MIN_ITERATIONS);
        assertThat(a).startsWith("pbkdf2-sha256$10000$").isNotEqualTo(b);
        assertThat(PasswordHash.verify(a, "correct horse".toCharArray())).isTrue();
        assertThat(PasswordHash.verify(b, "correct horse".toCharArray())).isTrue();
        assertThat(PasswordHash.verify(a, "correct horsE".toCharArray())).isFalse();
        assertThat(PasswordHash.verify(a, new char[0])).isFalse();
    }

    @Test
    void theDefaultWorkFactorIsTheRecordedOne() {
        String h = PasswordHash.create("pw".toCharArray());
        assertThat(h.split("\\$")[1]).isEqualTo(String.valueOf(PasswordHash.DEFAULT_ITERATIONS));
        assertThat(PasswordHash.verify(h, "pw".toCharArray())).isTrue();
    }

    @Test
    void refusesMalformedOrCheapHashesNamingTheField() {
        String cheap = "pbkdf2-sha256$1000$" + "AAAAAAAAAAAAAAAAAAAAAA$" + "A".repeat(43);
        for (String bad : new String[] {null, "", "plain", "md5$1$a$b", "pbkdf2-sha256$x$AAAA$AAAA",
                "pbkdf2-sha256$10000$!!$AAAA", "pbkdf2-sha256$10000$AAAAAAAAAAA$AAAA", cheap}) {
            assertThatThrownBy(() -> PasswordHash.verify(bad, "pw".toCharArray())).as(String.valueOf(bad))
                    .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("passwordHash"));
        }
        assertThatThrownBy(() -> PasswordHash.create("pw".toCharArray(), 999)).hasMessageContaining("iterations");
        assertThatThrownBy(() -> PasswordHash.create(new char[0])).hasMessageContaining("password");
    }
}
