package dev.postbox.examples.orders.demo;

import dev.postbox.console.BasicAuthenticator;
import dev.postbox.console.ConsoleAuthenticator;
import dev.postbox.console.PasswordHash;
import dev.postbox.examples.orders.OrderProperties;
import dev.postbox.operations.Role;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

import java.security.SecureRandom;

/**
 * The demo's console login: one ADMIN ({@code order.demo.console-user}, default {@code admin}) with a password
 * generated at every start, logged once with the console's URL when the application is ready. It is the
 * application's own {@link ConsoleAuthenticator} bean, which the starter's console uses instead of
 * {@code postbox.console.users}; a real service configures hashed users or uses Spring Security.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(prefix = "postbox.console", name = "enabled", havingValue = "true")
public class DemoConsoleLogin {

    private static final Logger log = LoggerFactory.getLogger(DemoConsoleLogin.class);
    private static final char[] ALPHABET = "abcdefghijkmnpqrstuvwxyzACDEFGHJKLMNPQRSTUVWXYZ23456789".toCharArray();

    /** The login of this start. */
    public record Login(String user, String password) {
        @Override
        public String toString() {
            return "Login[user=" + user + "]"; // the password is logged once, on purpose, and nowhere else
        }
    }

    @Bean
    Login demoLogin(OrderProperties properties) {
        SecureRandom random = new SecureRandom();
        char[] password = new char[16];
        for (int i = 0; i < password.length; i++) {
            password[i] = ALPHABET[random.nextInt(ALPHABET.length)];
        }
        return new Login(properties.demo().consoleUser(), new String(password));
    }

    @Bean
    ConsoleAuthenticator demoConsoleAuthenticator(Login login) {
        return BasicAuthenticator.builder()
                .user(login.user(), PasswordHash.create(login.password().toCharArray()), Role.ADMIN)
                .build();
    }

    @Bean
    ApplicationListener<ApplicationReadyEvent> demoConsoleBanner(Login login, Environment env) {
        return ready -> {
            String port = env.getProperty("local.server.port", env.getProperty("server.port", "8080"));
            String path = env.getProperty("postbox.console.path", "/postbox");
            log.info("Postbox console: http://localhost:{}{}/  user {}  password {}  (ADMIN; generated for this start)",
                    port, path, login.user(), login.password());
        };
    }
}
