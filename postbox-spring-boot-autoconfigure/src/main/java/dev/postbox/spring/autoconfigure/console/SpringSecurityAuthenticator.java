package dev.postbox.spring.autoconfigure.console;

import dev.postbox.console.ConsoleAuthenticator;
import dev.postbox.console.ConsoleRequest;
import dev.postbox.operations.Operator;
import dev.postbox.operations.Permission;
import dev.postbox.operations.Role;
import org.springframework.security.authentication.AuthenticationTrustResolver;
import org.springframework.security.authentication.AuthenticationTrustResolverImpl;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.context.SecurityContextHolder;

import java.util.EnumSet;
import java.util.Optional;

/**
 * The console's operator is whoever Spring Security authenticated for this request (form login, OAuth2, LDAP, HTTP
 * Basic: the application's login): the Authentication's name goes into the audit log, its authorities become
 * permissions through the configured names ({@code ROLE_POSTBOX_VIEWER}, {@code ROLE_POSTBOX_OPERATOR},
 * {@code ROLE_POSTBOX_ADMIN}, {@code POSTBOX_REVEAL_PAYLOAD} by default). No authentication, or an anonymous one,
 * is no operator (401). An authenticated user without any of the authorities is an operator without permissions:
 * every page is refused with 403. It reads the thread's SecurityContext, which Spring Security's filter chain has
 * set for the servlet's request. Thread-safe.
 */
final class SpringSecurityAuthenticator implements ConsoleAuthenticator {

    private final AuthenticationTrustResolver trust = new AuthenticationTrustResolverImpl();
    private final ConsoleProperties.Security names;

    SpringSecurityAuthenticator(ConsoleProperties.Security names) {
        this.names = names;
    }

    @Override
    public Optional<Operator> authenticate(ConsoleRequest request) {
        Authentication auth = SecurityContextHolder.getContext().getAuthentication();
        if (auth == null || !auth.isAuthenticated() || trust.isAnonymous(auth) || auth.getName() == null
                || auth.getName().isBlank()) {
            return Optional.empty();
        }
        EnumSet<Permission> permissions = EnumSet.noneOf(Permission.class);
        for (GrantedAuthority a : auth.getAuthorities()) {
            String name = a.getAuthority();
            if (name == null) {
                continue;
            }
            if (name.equals(names.getAdminAuthority())) {
                permissions.addAll(Role.ADMIN.permissions());
            } else if (name.equals(names.getOperatorAuthority())) {
                permissions.addAll(Role.OPERATOR.permissions());
            } else if (name.equals(names.getViewerAuthority())) {
                permissions.addAll(Role.VIEWER.permissions());
            }
            if (name.equals(names.getRevealPayloadAuthority())) {
                permissions.add(Permission.REVEAL_PAYLOAD);
            }
        }
        return Optional.of(new Operator(auth.getName(), permissions));
    }
}
