package dev.postbox.spring.autoconfigure.console;

import dev.postbox.Postbox;
import dev.postbox.common.ValidationException;
import dev.postbox.console.BasicAuthenticator;
import dev.postbox.console.ConsoleApi;
import dev.postbox.console.ConsoleAuthenticator;
import dev.postbox.console.ConsoleServlet;
import dev.postbox.operations.Operations;
import dev.postbox.operations.OperationsConfig;
import dev.postbox.operations.Operator;
import dev.postbox.operations.PayloadRedactor;
import dev.postbox.operations.Permission;
import dev.postbox.operations.Role;
import dev.postbox.spring.autoconfigure.PostboxProperties;
import dev.postbox.spring.autoconfigure.PropertyErrors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The operations console in a servlet web application, only when {@code postbox.console.enabled=true}: the
 * {@link Operations} of the application's Postbox (configured by {@code postbox.console.*} and, for blocked
 * aggregates, by how {@code postbox.relay.ordered}/{@code unordered-topics} make the relay run; the application's
 * {@link PayloadRedactor} bean when it has one), a {@link ConsoleApi} over it, and {@link ConsoleServlet} mapped at
 * {@code <path>/*}.
 *
 * <p>Who may use it, in this order: the application's own {@link ConsoleAuthenticator} bean; Spring Security when it
 * is on the class path ({@link SpringSecurityAuthenticator}, and {@link ConsoleSecurityConfiguration}'s filter chain
 * for the path); the configured {@code postbox.console.users} (HTTP Basic); {@code postbox.console.insecure-no-auth}
 * on a server bound to loopback. Anything else refuses the start-up, naming {@code postbox.console.users}.
 */
@AutoConfiguration(afterName = {"dev.postbox.spring.autoconfigure.PostboxAutoConfiguration",
        "org.springframework.boot.autoconfigure.security.servlet.SecurityAutoConfiguration",
        "org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration",
        "org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.security.servlet.ManagementWebSecurityAutoConfiguration",
        "org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration"})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({ConsoleServlet.class, ServletRegistrationBean.class})
@ConditionalOnProperty(prefix = "postbox.console", name = "enabled", havingValue = "true")
@ConditionalOnBean(Postbox.class)
@EnableConfigurationProperties(ConsoleProperties.class)
@Import(ConsoleSecurityConfiguration.class)
class PostboxConsoleAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(PostboxConsoleAutoConfiguration.class);

    /** Who every request is in insecure mode. */
    static final String INSECURE_OPERATOR = "developer";

    @Bean
    @ConditionalOnMissingBean
    Operations postboxOperations(Postbox postbox, ConsoleProperties c, PostboxProperties p,
                                 ObjectProvider<PayloadRedactor> redactor) {
        OperationsConfig config = PropertyErrors.renamed(field -> "postbox.console." + PropertyErrors.kebab(field),
                () -> OperationsConfig.defaults()
                        .overviewTtl(c.getOverviewTtl())
                        .aliveWithin(c.getAliveWithin())
                        .oldestPendingThreshold(c.getOldestPendingThreshold())
                        .previewTtl(c.getPreviewTtl())
                        .readOnly(c.isReadOnly()));
        config = config.ordered(p.getRelay().isOrdered()).unorderedTopics(p.getRelay().getUnorderedTopics())
                .redactor(redactor.getIfAvailable(PayloadRedactor::none));
        return postbox.operations(config);
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    ConsoleApi postboxConsoleApi(Operations operations, ConsoleProperties c, Environment env,
                                 ObjectProvider<ConsoleAuthenticator> authenticators) {
        ConsoleApi.Builder b = ConsoleApi.builder(operations).readOnly(c.isReadOnly());
        if (c.getCsrfSecret() != null) {
            byte[] secret = c.getCsrfSecret().getBytes(StandardCharsets.UTF_8);
            if (secret.length < 32) {
                throw new ValidationException("postbox.console.csrf-secret", "must be at least 32 bytes (was "
                        + secret.length + ")");
            }
            b.csrfSecret(secret);
        }
        ConsoleAuthenticator authenticator = authenticators.getIfUnique();
        String path = path(c);
        if (authenticator != null) {
            if (!c.getUsers().isEmpty()) {
                throw new ValidationException("postbox.console.users", "are not used: the console authenticates through "
                        + describe(authenticator) + "; remove them"
                        + (authenticator instanceof SpringSecurityAuthenticator ? ", give your users the authorities "
                        + c.getSecurity().getViewerAuthority() + ", " + c.getSecurity().getOperatorAuthority() + " or "
                        + c.getSecurity().getAdminAuthority() + ", or set postbox.console.security.spring-security=false" : ""));
            }
            if (c.isInsecureNoAuth()) {
                throw new ValidationException("postbox.console.insecure-no-auth", "is set, but the console authenticates"
                        + " through " + describe(authenticator) + "; remove it");
            }
            b.authenticator(authenticator);
            log.info("Postbox console at {}/ (authentication: {}{})", path, describe(authenticator),
                    c.isReadOnly() ? ", read-only" : "");
        } else if (!c.getUsers().isEmpty()) {
            if (c.isInsecureNoAuth()) {
                throw new ValidationException("postbox.console.insecure-no-auth", "is set together with"
                        + " postbox.console.users; choose one");
            }
            BasicAuthenticator users = users(c.getUsers());
            b.authenticator(users);
            log.info("Postbox console at {}/ (HTTP Basic, users {}{})", path, users.userNames(),
                    c.isReadOnly() ? ", read-only" : "");
        } else if (c.isInsecureNoAuth()) {
            String address = env.getProperty("server.address");
            if (!loopback(address)) {
                throw new ValidationException("postbox.console.insecure-no-auth", "needs the server bound to loopback"
                        + " only: set server.address=127.0.0.1 (or ::1); it is " + (address == null || address.isBlank()
                        ? "unset, so the server listens on every interface" : address));
            }
            b.insecureNoAuthentication(Operator.of(INSECURE_OPERATOR, Role.ADMIN));
        } else {
            throw new ValidationException("postbox.console.users", "is required: postbox.console.enabled=true exposes"
                    + " and changes events, and there is no Spring Security on the class path; configure"
                    + " postbox.console.users[0].name, .password-hash and .roles, add Spring Security, or, on a"
                    + " developer's machine only, postbox.console.insecure-no-auth=true with server.address=127.0.0.1");
        }
        return PropertyErrors.renamed(field -> "postbox.console." + PropertyErrors.kebab(field), b::build);
    }

    @Bean
    ServletRegistrationBean<ConsoleServlet> postboxConsoleServlet(ConsoleApi api, ConsoleProperties c) {
        ServletRegistrationBean<ConsoleServlet> registration = new ServletRegistrationBean<>(new ConsoleServlet(api),
                path(c) + "/*");
        registration.setName("postboxConsole");
        registration.setLoadOnStartup(1);
        return registration;
    }

    /** The configured mount path without a trailing slash, checked: {@code /postbox}, {@code /ops/postbox}. */
    static String path(ConsoleProperties c) {
        String path = c.getPath();
        if (path == null || !path.matches("(/[A-Za-z0-9._~-]+)+/?")) {
            throw new ValidationException("postbox.console.path", "must be an absolute path of letters, digits and"
                    + " . _ ~ - segments, such as " + ConsoleProperties.DEFAULT_PATH + " (was " + path + ")");
        }
        return path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }

    static BasicAuthenticator users(List<ConsoleProperties.User> users) {
        BasicAuthenticator.Builder b = BasicAuthenticator.builder();
        for (int i = 0; i < users.size(); i++) {
            ConsoleProperties.User u = users.get(i);
            String field = "postbox.console.users[" + i + "]";
            List<Role> roles = u.getRoles() == null ? List.of() : u.getRoles();
            if (roles.isEmpty()) {
                throw new ValidationException(field + ".roles", "at least one of VIEWER, OPERATOR, ADMIN is required");
            }
            Set<Permission> extra = EnumSet.noneOf(Permission.class);
            roles.forEach(r -> extra.addAll(r.permissions()));
            if (u.isRevealPayload()) {
                extra.add(Permission.REVEAL_PAYLOAD);
            }
            Role first = roles.get(0);
            PropertyErrors.renamed(f -> f.replaceFirst("^users\\[\\d+]", field).replace("passwordHash", "password-hash"),
                    () -> b.user(u.getName(), u.getPasswordHash(), first, extra.toArray(new Permission[0])));
        }
        return b.build();
    }

    private static String describe(ConsoleAuthenticator a) {
        return a instanceof SpringSecurityAuthenticator ? "Spring Security" : a.getClass().getName();
    }

    /** Whether the server's {@code server.address} is a loopback IP literal (a host name is not resolved). */
    static boolean loopback(String address) {
        if (address == null || address.isBlank()) {
            return false;
        }
        String a = address.strip();
        if (a.startsWith("[") && a.endsWith("]")) {
            a = a.substring(1, a.length() - 1);
        }
        if (!a.matches("\\d{1,3}(\\.\\d{1,3}){3}") && !(a.indexOf(':') >= 0 && a.matches("[0-9a-fA-F:.]+"))) {
            return false;
        }
        try {
            return InetAddress.getByName(a).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /**
     * Spring Security on the class path (and not switched off by {@code postbox.console.security.spring-security}):
     * the console's operator is the request's Authentication.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.security.core.context.SecurityContextHolder")
    @ConditionalOnProperty(prefix = "postbox.console.security", name = "spring-security", havingValue = "true",
            matchIfMissing = true)
    static class SpringSecurityAuthentication {

        @Bean
        @ConditionalOnMissingBean
        ConsoleAuthenticator postboxConsoleAuthenticator(ConsoleProperties c) {
            return new SpringSecurityAuthenticator(c.getSecurity());
        }
    }
}
