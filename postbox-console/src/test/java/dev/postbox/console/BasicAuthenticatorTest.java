package dev.postbox.console;

import dev.postbox.common.ValidationException;
import dev.postbox.operations.Operator;
import dev.postbox.operations.Permission;
import dev.postbox.operations.Role;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BasicAuthenticatorTest {

    private static final String HASH = PasswordHash.create("s3cret".toCharArray(), PasswordHash.MIN_ITERATIONS);

    private static ConsoleRequest withAuthorization(String value) {
        return new ConsoleRequest("GET", "/api/me", Map.of(), value == null ? Map.of() : Map.of("Authorization", List.of(value)),
                null, "127.0.0.1");
    }

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aConfiguredUserIsTheOperatorWithItsRoleAndGrants() {
        BasicAuthenticator auth = BasicAuthenticator.builder()
                .user("ana", HASH, Role.OPERATOR, Permission.REVEAL_PAYLOAD)
                .user("vic", HASH, Role.VIEWER)
                .build();
        Optional<Operator> ana = auth.authenticate(withAuthorization(basic("ana", "s3cret")));
        assertThat(ana).hasValueSatisfying(o -> {
            assertThat(o.name()).isEqualTo("ana");
            assertThat(o.permissions()).containsExactlyInAnyOrder(Permission.VIEW, Permission.RETRY, Permission.CANCEL,
                    Permission.BULK, Permission.REVEAL_PAYLOAD);
        });
        assertThat(auth.authenticate(withAuthorization(basic("vic", "s3cret")))).map(Operator::permissions)
                .contains(java.util.Set.of(Permission.VIEW));
        assertThat(auth.challenge()).isEqualTo("Basic realm=\"Postbox console\", charset=\"UTF-8\"");
    }

    @Test
    void wrongOrMissingCredentialsAuthenticateNobody() {
        BasicAuthenticator auth = BasicAuthenticator.builder().user("ana", HASH, Role.ADMIN).build();
        assertThat(auth.authenticate(withAuthorization(basic("ana", "s3cret")))).isPresent();
        for (String bad : new String[] {null, "", basic("ana", "wrong"), basic("ana", "s3cret "), basic("bob", "s3cret"),
                "Bearer abc", "Basic !!!", "Basic " + Base64.getEncoder().encodeToString("no-colon".getBytes()),
                "Basic " + Base64.getEncoder().encodeToString(new byte[] {'a', 'n', 'a', ':', (byte) 0xff})}) {
            assertThat(auth.authenticate(withAuthorization(bad))).as(String.valueOf(bad)).isEmpty();
        }
    }

    @Test
    void aRememberedPasswordIsStillCheckedAgainstWhatIsSent() {
        BasicAuthenticator auth = BasicAuthenticator.builder().user("ana", HASH, Role.ADMIN)
                .rememberVerified(Duration.ofMinutes(5)).build();
        assertThat(auth.authenticate(withAuthorization(basic("ana", "s3cret")))).isPresent();
        assertThat(auth.authenticate(withAuthorization(basic("ana", "s3cret")))).isPresent();
        assertThat(auth.authenticate(withAuthorization(basic("ana", "other")))).isEmpty();
        assertThat(auth.authenticate(withAuthorization("basic " + basic("ana", "s3cret").substring(6)))).isPresent();
    }

    @Test
    void unicodeNamesAndPasswordsWorkAsUtf8() {
        String hash = PasswordHash.create("pässwörd😀".toCharArray(), PasswordHash.MIN_ITERATIONS);
        BasicAuthenticator auth = BasicAuthenticator.builder().user("zoë", hash, Role.VIEWER).rememberVerified(Duration.ZERO).build();
        assertThat(auth.authenticate(withAuthorization(basic("zoë", "pässwörd😀")))).map(Operator::name).contains("zoë");
    }

    @Test
    void badConfigurationIsRefusedNamingTheSetting() {
        assertThatThrownBy(() -> BasicAuthenticator.builder().build()).isInstanceOfSatisfying(ValidationException.class,
                e -> assertThat(e.field()).isEqualTo("users"));
        assertThatThrownBy(() -> BasicAuthenticator.builder().user("a:b", HASH, Role.ADMIN))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("users[0].name"));
        assertThatThrownBy(() -> BasicAuthenticator.builder().user("a", HASH, Role.ADMIN).user("a", HASH, Role.VIEWER))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("users[1].name"));
        assertThatThrownBy(() -> BasicAuthenticator.builder().user("a", "secret", Role.ADMIN))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("users[0].passwordHash"));
        assertThatThrownBy(() -> BasicAuthenticator.builder().user("a", HASH, null))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("users[0].role"));
        assertThatThrownBy(() -> BasicAuthenticator.builder().realm("a\"b"))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("realm"));
    }
}
