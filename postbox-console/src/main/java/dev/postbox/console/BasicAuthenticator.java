package dev.postbox.console;

import dev.postbox.common.ValidationException;
import dev.postbox.operations.Operator;
import dev.postbox.operations.Permission;
import dev.postbox.operations.Role;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;

/**
 * HTTP Basic authentication ({@code Authorization: Basic ...}, RFC 7617) over users configured with a
 * {@link PasswordHash}, a {@link Role} and extra {@link Permission}s (such as {@link Permission#REVEAL_PAYLOAD}
 * for an operator allowed to see payloads). Meant for the console behind TLS (a reverse proxy or the
 * application's own), as every Basic scheme is.
 *
 * <p>A PBKDF2 check costs tens to hundreds of milliseconds by design, and Basic sends the password with every
 * request; so after a successful check the authenticator remembers, for {@link Builder#rememberVerified}
 * (default {@value #DEFAULT_REMEMBER_SECONDS} s), a keyed HMAC of the credentials (never the password), and
 * later requests with the same credentials compare that in constant time. At most two PBKDF2 checks run at once,
 * so a flood of wrong passwords costs two cores at most; an unknown user costs a PBKDF2 check like a known one,
 * so response times do not tell which names exist. Thread-safe.
 */
public final class BasicAuthenticator implements ConsoleAuthenticator {

    /** How long a verified password is remembered by default, in seconds. */
    public static final int DEFAULT_REMEMBER_SECONDS = 300;

    /** The realm of the {@code WWW-Authenticate} challenge by default. */
    public static final String DEFAULT_REALM = "Postbox console";

    private final Map<String, User> users;
    private final String challenge;
    private final long rememberNanos;
    private final PasswordHash.Parsed dummy;
    private final byte[] cacheKey = new byte[32];
    private final Map<String, Remembered> remembered = new ConcurrentHashMap<>();
    private final Semaphore hashing = new Semaphore(2, true);

    private record User(String name, PasswordHash.Parsed hash, Operator operator) {
    }

    private record Remembered(byte[] mac, long until) {
    }

    private BasicAuthenticator(Builder b) {
        this.users = Map.copyOf(b.users);
        this.challenge = "Basic realm=\"" + b.realm + "\", charset=\"UTF-8\"";
        this.rememberNanos = b.remember.toNanos();
        int iterations = users.values().stream().mapToInt(u -> u.hash.iterations()).max().orElse(PasswordHash.MIN_ITERATIONS);
        byte[] salt = new byte[16];
        SecureRandom random = new SecureRandom();
        random.nextBytes(salt);
        random.nextBytes(cacheKey);
        this.dummy = new PasswordHash.Parsed(iterations, salt, new byte[32]);
    }

    /** A builder with no users. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public Optional<Operator> authenticate(ConsoleRequest request) {
        Optional<String> header = request.header("Authorization");
        if (header.isEmpty()) {
            return Optional.empty();
        }
        String value = header.get().strip();
        if (value.length() < 6 || !value.regionMatches(true, 0, "Basic ", 0, 6)) {
            return Optional.empty();
        }
        char[] credentials = decode(value.substring(6).strip());
        if (credentials == null) {
            return Optional.empty();
        }
        try {
            int colon = indexOf(credentials, ':');
            if (colon < 0) {
                return Optional.empty();
            }
            String name = new String(credentials, 0, colon);
            char[] password = Arrays.copyOfRange(credentials, colon + 1, credentials.length);
            try {
                return check(name, password);
            } finally {
                Arrays.fill(password, '\0');
            }
        } finally {
            Arrays.fill(credentials, '\0');
        }
    }

    private Optional<Operator> check(String name, char[] password) {
        User user = users.get(name);
        byte[] mac = mac(name, password);
        if (user != null && rememberNanos > 0) {
            Remembered r = remembered.get(name);
            if (r != null && System.nanoTime() - r.until < 0 && MessageDigest.isEqual(r.mac, mac)) {
                return Optional.of(user.operator);
            }
        }
        boolean ok;
        hashing.acquireUninterruptibly();
        try {
            if (user == null) {
                dummy.matches(password); // as long as a known user's check: timing does not tell names apart
                ok = false;
            } else {
                ok = user.hash.matches(password);
            }
        } finally {
            hashing.release();
        }
        if (!ok) {
            return Optional.empty();
        }
        if (rememberNanos > 0) {
            remembered.put(name, new Remembered(mac, System.nanoTime() + rememberNanos));
        }
        return Optional.of(user.operator);
    }

    private byte[] mac(String name, char[] password) {
        try {
            Mac hmac = Mac.getInstance("HmacSHA256");
            hmac.init(new SecretKeySpec(cacheKey, "HmacSHA256"));
            hmac.update(name.getBytes(StandardCharsets.UTF_8));
            hmac.update((byte) 0);
            ByteBuffer bytes = StandardCharsets.UTF_8.encode(CharBuffer.wrap(password));
            hmac.update(bytes);
            if (bytes.hasArray()) {
                Arrays.fill(bytes.array(), (byte) 0);
            }
            return hmac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
        }
    }

    /** UTF-8 (RFC 7617's charset="UTF-8") of the base64 credentials, or null when they are not valid. */
    private static char[] decode(String base64) {
        byte[] raw;
        try {
            raw = Base64.getDecoder().decode(base64);
        } catch (IllegalArgumentException e) {
            return null;
        }
        try {
            CharBuffer chars = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(raw));
            char[] out = new char[chars.remaining()];
            chars.get(out);
            if (chars.hasArray()) {
                Arrays.fill(chars.array(), '\0');
            }
            return out;
        } catch (CharacterCodingException e) {
            return null;
        } finally {
            Arrays.fill(raw, (byte) 0);
        }
    }

    private static int indexOf(char[] chars, char c) {
        for (int i = 0; i < chars.length; i++) {
            if (chars[i] == c) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public String challenge() {
        return challenge;
    }

    /** The configured user names, for a start-up log line. */
    public java.util.Set<String> userNames() {
        return users.keySet();
    }

    /** Configures a {@link BasicAuthenticator}; not thread-safe. */
    public static final class Builder {
        private final Map<String, User> users = new LinkedHashMap<>();
        private String realm = DEFAULT_REALM;
        private Duration remember = Duration.ofSeconds(DEFAULT_REMEMBER_SECONDS);

        private Builder() {
        }

        /**
         * Adds user {@code name} (1..128 characters, no {@code :} and no control characters) with the hash of its
         * password ({@link PasswordHash#create(char[])}), its role and any extra permissions.
         */
        public Builder user(String name, String passwordHash, Role role, Permission... extra) {
            String field = "users[" + users.size() + "]";
            if (name == null || name.isBlank() || name.length() > 128 || name.indexOf(':') >= 0
                    || name.chars().anyMatch(Character::isISOControl)) {
                throw new ValidationException(field + ".name", "must be 1..128 characters without ':' or control"
                        + " characters (was " + (name == null ? "null" : "\"" + name + "\"") + ")");
            }
            if (users.containsKey(name)) {
                throw new ValidationException(field + ".name", "\"" + name + "\" is configured twice");
            }
            if (role == null) {
                throw new ValidationException(field + ".role", "is required (VIEWER, OPERATOR or ADMIN)");
            }
            PasswordHash.Parsed hash = PasswordHash.parse(field + ".passwordHash", passwordHash);
            users.put(name, new User(name, hash, Operator.of(name, role).with(extra == null ? new Permission[0] : extra)));
            return this;
        }

        /** The realm named in the challenge; default {@value #DEFAULT_REALM}. Quotes and backslashes are refused. */
        public Builder realm(String realm) {
            if (realm == null || realm.isBlank() || realm.length() > 100 || realm.indexOf('"') >= 0
                    || realm.indexOf('\\') >= 0 || realm.chars().anyMatch(Character::isISOControl)) {
                throw new ValidationException("realm", "must be 1..100 characters without quotes, backslashes or"
                        + " control characters");
            }
            this.realm = realm;
            return this;
        }

        /**
         * How long a verified password is remembered (as a keyed HMAC, in memory); default
         * {@value #DEFAULT_REMEMBER_SECONDS} s, {@link Duration#ZERO} runs PBKDF2 on every request; at most 1 day.
         */
        public Builder rememberVerified(Duration duration) {
            if (duration == null || duration.isNegative() || duration.compareTo(Duration.ofDays(1)) > 0) {
                throw new ValidationException("rememberVerified", "must be between 0 and 1 day (was " + duration + ")");
            }
            this.remember = duration;
            return this;
        }

        /** The authenticator; at least one user is required. */
        public BasicAuthenticator build() {
            if (users.isEmpty()) {
                throw new ValidationException("users", "at least one user is required");
            }
            return new BasicAuthenticator(this);
        }
    }
}
