package dev.postbox.spring.autoconfigure.console;

import dev.postbox.operations.OperationsConfig;
import dev.postbox.operations.Role;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code postbox.console.*} properties: the operations console (postbox-console) served by the application
 * under {@link #getPath()}. Nothing is exposed unless {@code postbox.console.enabled=true}. Who may use it comes
 * from Spring Security when the application has it (authorities {@code ROLE_POSTBOX_VIEWER},
 * {@code ROLE_POSTBOX_OPERATOR}, {@code ROLE_POSTBOX_ADMIN}, {@code POSTBOX_REVEAL_PAYLOAD}; names configurable
 * under {@code postbox.console.security}); otherwise from {@link #getUsers()} (HTTP Basic with PBKDF2 password
 * hashes). Without either the application refuses to start, unless {@link #isInsecureNoAuth()} on a server bound to
 * loopback. The operations defaults are {@link OperationsConfig}'s constants.
 */
@ConfigurationProperties(prefix = "postbox.console")
public class ConsoleProperties {

    /** Default of {@link #getPath()}: the console's own default mount path. */
    public static final String DEFAULT_PATH = dev.postbox.console.ConsoleApi.DEFAULT_MOUNT_PATH;

    /** Whether to serve the operations console (API and web UI). Off unless set: nothing is exposed by default. */
    private boolean enabled = false;

    /** Where the console is mounted: a path such as /postbox (UI at /postbox/, API at /postbox/api/...). */
    private String path = DEFAULT_PATH;

    /** Refuse every change (retry, cancel, bulk) and show the UI without action buttons; payload reveals stay allowed to who may. */
    private boolean readOnly = false;

    /**
     * For a developer's machine only: no authentication, every request acts as an ADMIN named "developer".
     * Allowed only without Spring Security and users, and only with server.address bound to loopback (127.0.0.1 or ::1).
     */
    private boolean insecureNoAuth = false;

    /** Users of the built-in HTTP Basic authentication, when the application has no Spring Security. */
    private List<User> users = new ArrayList<>();

    /** How long the overview is served from cache (1 s .. 10 min). */
    private Duration overviewTtl = OperationsConfig.DEFAULT_OVERVIEW_TTL;

    /** A relay or worker whose last heartbeat is older counts as gone (1 s .. 1 day). */
    private Duration aliveWithin = OperationsConfig.DEFAULT_ALIVE_WITHIN;

    /** An unfinished event older than this is shown as a problem (1 s .. 30 days). */
    private Duration oldestPendingThreshold = OperationsConfig.DEFAULT_OLDEST_PENDING_THRESHOLD;

    /** How long a bulk dry run's token is accepted (10 s .. 1 day). */
    private Duration previewTtl = OperationsConfig.DEFAULT_PREVIEW_TTL;

    /**
     * Secret of the console's CSRF tokens, at least 32 characters; give every replica behind one address the same.
     * Default: random per start.
     */
    private String csrfSecret;

    private final Security security = new Security();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getPath() {
        return path;
    }

    public void setPath(String path) {
        this.path = path;
    }

    public boolean isReadOnly() {
        return readOnly;
    }

    public void setReadOnly(boolean readOnly) {
        this.readOnly = readOnly;
    }

    public boolean isInsecureNoAuth() {
        return insecureNoAuth;
    }

    public void setInsecureNoAuth(boolean insecureNoAuth) {
        this.insecureNoAuth = insecureNoAuth;
    }

    public List<User> getUsers() {
        return users;
    }

    public void setUsers(List<User> users) {
        this.users = users;
    }

    public Duration getOverviewTtl() {
        return overviewTtl;
    }

    public void setOverviewTtl(Duration overviewTtl) {
        this.overviewTtl = overviewTtl;
    }

    public Duration getAliveWithin() {
        return aliveWithin;
    }

    public void setAliveWithin(Duration aliveWithin) {
        this.aliveWithin = aliveWithin;
    }

    public Duration getOldestPendingThreshold() {
        return oldestPendingThreshold;
    }

    public void setOldestPendingThreshold(Duration oldestPendingThreshold) {
        this.oldestPendingThreshold = oldestPendingThreshold;
    }

    public Duration getPreviewTtl() {
        return previewTtl;
    }

    public void setPreviewTtl(Duration previewTtl) {
        this.previewTtl = previewTtl;
    }

    public String getCsrfSecret() {
        return csrfSecret;
    }

    public void setCsrfSecret(String csrfSecret) {
        this.csrfSecret = csrfSecret;
    }

    public Security getSecurity() {
        return security;
    }

    /** One user of the built-in HTTP Basic authentication ({@code postbox.console.users[i].*}). */
    public static class User {

        /** The user's name: what the audit log records (1..128 characters, no ':'). */
        private String name;

        /**
         * The PBKDF2 hash of the password, made with PasswordHash.create or
         * {@code java -cp postbox-console.jar dev.postbox.console.PasswordHash}; never the password itself.
         */
        private String passwordHash;

        /** The user's roles: VIEWER looks, OPERATOR also retries and cancels, ADMIN has everything. */
        private List<Role> roles = new ArrayList<>(List.of(Role.VIEWER));

        /** Whether the user may reveal payloads besides what the roles allow (ADMIN always may). */
        private boolean revealPayload = false;

        public String getName() {
            return name;
        }

        public void setName(String name) {
            this.name = name;
        }

        public String getPasswordHash() {
            return passwordHash;
        }

        public void setPasswordHash(String passwordHash) {
            this.passwordHash = passwordHash;
        }

        public List<Role> getRoles() {
            return roles;
        }

        public void setRoles(List<Role> roles) {
            this.roles = roles;
        }

        public boolean isRevealPayload() {
            return revealPayload;
        }

        public void setRevealPayload(boolean revealPayload) {
            this.revealPayload = revealPayload;
        }
    }

    /** {@code postbox.console.security.*}: the console behind the application's Spring Security. */
    public static class Security {

        /** Default of {@link #getViewerAuthority()}. */
        public static final String VIEWER_AUTHORITY = "ROLE_POSTBOX_VIEWER";
        /** Default of {@link #getOperatorAuthority()}. */
        public static final String OPERATOR_AUTHORITY = "ROLE_POSTBOX_OPERATOR";
        /** Default of {@link #getAdminAuthority()}. */
        public static final String ADMIN_AUTHORITY = "ROLE_POSTBOX_ADMIN";
        /** Default of {@link #getRevealPayloadAuthority()}. */
        public static final String REVEAL_PAYLOAD_AUTHORITY = "POSTBOX_REVEAL_PAYLOAD";
        /** Default of {@link #getLoginPage()}: where Spring Boot's default form login lives. */
        public static final String LOGIN_PAGE = "/login";

        /**
         * Whether the console uses Spring Security when it is on the class path: the current Authentication is the
         * operator, its authorities the permissions. False: the built-in users (or insecure mode) instead.
         */
        private boolean springSecurity = true;

        /**
         * Whether Postbox adds a SecurityFilterChain for the console's path (before the application's own chains):
         * every request authenticated (the application's session login or HTTP Basic), Spring's CSRF off there because
         * the console checks its own token. False: the application's chains alone secure the path.
         */
        private boolean filterChain = true;

        /** Where an unauthenticated browser opening the UI is sent to log in; empty: an HTTP Basic challenge instead. */
        private String loginPage = LOGIN_PAGE;

        /** Authority that makes a user a VIEWER (looks at everything but payloads). */
        private String viewerAuthority = VIEWER_AUTHORITY;

        /** Authority that makes a user an OPERATOR (also retries, cancels, bulk actions). */
        private String operatorAuthority = OPERATOR_AUTHORITY;

        /** Authority that makes a user an ADMIN (everything, payloads included). */
        private String adminAuthority = ADMIN_AUTHORITY;

        /** Authority that lets a user reveal payloads, whatever the role. */
        private String revealPayloadAuthority = REVEAL_PAYLOAD_AUTHORITY;

        public boolean isSpringSecurity() {
            return springSecurity;
        }

        public void setSpringSecurity(boolean springSecurity) {
            this.springSecurity = springSecurity;
        }

        public boolean isFilterChain() {
            return filterChain;
        }

        public void setFilterChain(boolean filterChain) {
            this.filterChain = filterChain;
        }

        public String getLoginPage() {
            return loginPage;
        }

        public void setLoginPage(String loginPage) {
            this.loginPage = loginPage;
        }

        public String getViewerAuthority() {
            return viewerAuthority;
        }

        public void setViewerAuthority(String viewerAuthority) {
            this.viewerAuthority = viewerAuthority;
        }

        public String getOperatorAuthority() {
            return operatorAuthority;
        }

        public void setOperatorAuthority(String operatorAuthority) {
            this.operatorAuthority = operatorAuthority;
        }

        public String getAdminAuthority() {
            return adminAuthority;
        }

        public void setAdminAuthority(String adminAuthority) {
            this.adminAuthority = adminAuthority;
        }

        public String getRevealPayloadAuthority() {
            return revealPayloadAuthority;
        }

        public void setRevealPayloadAuthority(String revealPayloadAuthority) {
            this.revealPayloadAuthority = revealPayloadAuthority;
        }
    }
}
