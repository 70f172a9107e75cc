package dev.postbox.spring.autoconfigure.console;

import jakarta.servlet.http.HttpServletRequest;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.util.matcher.RequestMatcher;

/**
 * The console's own {@link SecurityFilterChain}, for {@code <path>/**} only, ordered before the application's chains
 * and Spring Boot's default one (which stays in force for every other path: this configuration runs after Boot's
 * security auto-configuration, so adding this chain never switches Boot's default off):
 * <ul>
 *   <li>every request must be authenticated: by the application's own login (the session a form or OAuth2 login
 *       created is read as on any other path) or HTTP Basic against the application's users (for the CLI and
 *       scripts);</li>
 *   <li>an unauthenticated browser asking for the UI is redirected to {@code postbox.console.security.login-page}
 *       ({@code /login}, Boot's default form login); the API and other clients get 401 with a Basic challenge;</li>
 *   <li>Spring's CSRF protection is off for this path only, because the console checks its own: every change needs
 *       header {@code X-Postbox-Csrf} with a token bound to the authenticated user, which a cross-site request
 *       cannot read or send, and a JSON body. Two CSRF schemes on one path would make the UI's changes fail.</li>
 * </ul>
 * An application that wants its own rules for the path defines a bean named {@value #BEAN_NAME}, or sets
 * {@code postbox.console.security.filter-chain=false} and covers the path in its own chain (then excluding it from
 * Spring's CSRF: {@code csrf(c -> c.ignoringRequestMatchers("/postbox/**"))}).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = {"org.springframework.security.web.SecurityFilterChain",
        "org.springframework.security.config.annotation.web.builders.HttpSecurity"})
@ConditionalOnProperty(prefix = "postbox.console.security", name = {"spring-security", "filter-chain"},
        havingValue = "true", matchIfMissing = true)
@ConditionalOnBean(type = "org.springframework.security.config.annotation.web.builders.HttpSecurity")
class ConsoleSecurityConfiguration {

    /** The chain's bean name. */
    static final String BEAN_NAME = "postboxConsoleSecurityFilterChain";

    /** Before Spring Boot's default chain (LOWEST_PRECEDENCE - 5) and before application chains without an order. */
    static final int ORDER = Ordered.LOWEST_PRECEDENCE - 10;

    @Bean(BEAN_NAME)
    @Order(ORDER)
    @ConditionalOnMissingBean(name = BEAN_NAME)
    SecurityFilterChain postboxConsoleSecurityFilterChain(HttpSecurity http, ConsoleProperties c) throws Exception {
        String path = PostboxConsoleAutoConfiguration.path(c);
        RequestMatcher console = request -> below(request, path) != null;
        AuthenticationEntryPoint entry = entryPoint(path, c.getSecurity().getLoginPage());
        http.securityMatcher(console)
                .authorizeHttpRequests(a -> a.anyRequest().authenticated())
                .httpBasic(b -> b.authenticationEntryPoint(entry))
                .exceptionHandling(e -> e.authenticationEntryPoint(entry))
                .csrf(csrf -> csrf.disable());
        return http.build();
    }

    /** The request's path below the console's mount path ("" for the mount itself), or null when it is not the console's. */
    static String below(HttpServletRequest request, String path) {
        String uri = request.getRequestURI();
        String context = request.getContextPath() == null ? "" : request.getContextPath();
        String rest = uri.startsWith(context) ? uri.substring(context.length()) : uri;
        if (rest.equals(path)) {
            return "";
        }
        return rest.startsWith(path + "/") ? rest.substring(path.length()) : null;
    }

    /** Browsers asking for a page go to the login page; the API and every other client get a Basic challenge. */
    static AuthenticationEntryPoint entryPoint(String path, String loginPage) {
        return (request, response, failure) -> {
            String rest = below(request, path);
            String accept = request.getHeader("Accept");
            boolean page = rest != null && !rest.startsWith("/api/") && accept != null && accept.contains("text/html");
            if (page && loginPage != null && !loginPage.isBlank()) {
                response.sendRedirect(request.getContextPath() + loginPage);
                return;
            }
            response.setHeader("WWW-Authenticate", "Basic realm=\"" + dev.postbox.console.BasicAuthenticator.DEFAULT_REALM
                    + "\", charset=\"UTF-8\"");
            response.setContentType("application/json");
            response.setStatus(401);
            response.getWriter().write("{\"error\":\"unauthorized\",\"message\":\"authentication required\"}");
        };
    }
}
