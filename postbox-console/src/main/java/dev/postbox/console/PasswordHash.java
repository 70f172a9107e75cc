package dev.postbox.console;

import dev.postbox.common.ValidationException;

import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import java.io.Console;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;

/**
 * Password hashes for {@link BasicAuthenticator}: PBKDF2 with HMAC-SHA256, a random 16-byte salt per password
 * and a work factor of {@value #DEFAULT_ITERATIONS} iterations by default, written as one line of text
 * {@code pbkdf2-sha256$<iterations>$<salt, base64>$<hash, base64>} that a configuration file can hold. Only the
 * hash is configured, never the password. Make one with {@link #create(char[])} or from a terminal:
 * <pre>java -cp postbox-console.jar dev.postbox.console.PasswordHash</pre>
 * (it asks for the password without echoing it). Comparisons run in constant time. Thread-safe (no state).
 */
public final class PasswordHash {

    /** PBKDF2-HMAC-SHA256 iterations of {@link #create(char[])}: OWASP's recommendation as of 2023. */
    public static final int DEFAULT_ITERATIONS = 600_000;

    /** The fewest iterations a hash may have, so a configured hash is never trivially cheap to crack. */
    public static final int MIN_ITERATIONS = 10_000;

    static final String SCHEME = "pbkdf2-sha256";
    private static final int MAX_ITERATIONS = 10_000_000;
    private static final int SALT_BYTES = 16;
    private static final int HASH_BITS = 256;
    private static final SecureRandom RANDOM = new SecureRandom();

    private PasswordHash() {
    }

    /** A new hash of {@code password} with {@link #DEFAULT_ITERATIONS} and a random salt. */
    public static String create(char[] password) {
        return create(password, DEFAULT_ITERATIONS);
    }

    /** A new hash of {@code password} with {@code iterations} ({@value #MIN_ITERATIONS}..10,000,000) and a random salt. */
    public static String create(char[] password, int iterations) {
        if (password == null || password.length == 0) {
            throw new ValidationException("password", "is required");
        }
        if (iterations < MIN_ITERATIONS || iterations > MAX_ITERATIONS) {
            throw new ValidationException("iterations", "must be between " + MIN_ITERATIONS + " and " + MAX_ITERATIONS
                    + " (was " + iterations + ")");
        }
        byte[] salt = new byte[SALT_BYTES];
        RANDOM.nextBytes(salt);
        Base64.Encoder b64 = Base64.getEncoder().withoutPadding();
        return SCHEME + "$" + iterations + "$" + b64.encodeToString(salt) + "$"
                + b64.encodeToString(derive(password, salt, iterations));
    }

    /** Whether {@code password} is the one {@code encoded} was made from; false for any other password. */
    public static boolean verify(String encoded, char[] password) {
        return parse("passwordHash", encoded).matches(password);
    }

    /** A parsed hash; {@link ValidationException} naming {@code field} when {@code encoded} is not one. */
    static Parsed parse(String field, String encoded) {
        String format = "must be " + SCHEME + "$<iterations>$<salt>$<hash> as PasswordHash.create makes it";
        if (encoded == null) {
            throw new ValidationException(field, "is required: " + format);
        }
        String[] parts = encoded.strip().split("\\$", -1);
        if (parts.length != 4 || !parts[0].equals(SCHEME)) {
            throw new ValidationException(field, format);
        }
        try {
            int iterations = Integer.parseInt(parts[1]);
            byte[] salt = Base64.getDecoder().decode(parts[2]);
            byte[] hash = Base64.getDecoder().decode(parts[3]);
            if (iterations < MIN_ITERATIONS || iterations > MAX_ITERATIONS) {
                throw new ValidationException(field, "has " + iterations + " iterations; at least " + MIN_ITERATIONS
                        + " are required");
            }
            if (salt.length < 8 || hash.length != HASH_BITS / 8) {
                throw new ValidationException(field, format + " (salt of at least 8 bytes, hash of 32)");
            }
            return new Parsed(iterations, salt, hash);
        } catch (IllegalArgumentException e) { // NumberFormatException, bad base64
            throw new ValidationException(field, format);
        }
    }

    /** One decoded hash. */
    record Parsed(int iterations, byte[] salt, byte[] hash) {
        boolean matches(char[] password) {
            byte[] candidate = derive(password == null ? new char[0] : password, salt, iterations);
            return MessageDigest.isEqual(candidate, hash);
        }
    }

    static byte[] derive(char[] password, byte[] salt, int iterations) {
        PBEKeySpec spec = new PBEKeySpec(password, salt, iterations, HASH_BITS);
        try {
            return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("PBKDF2WithHmacSHA256 is not available in this JVM", e);
        } finally {
            spec.clearPassword();
        }
    }

    /** Asks for a password on the terminal (twice, not echoed) and prints its hash. */
    public static void main(String[] args) {
        Console console = System.console();
        char[] first;
        char[] second;
        if (console != null) {
            first = console.readPassword("Password: ");
            second = console.readPassword("Again: ");
        } else { // piped: one line from standard input
            try {
                String line = new String(System.in.readAllBytes(), StandardCharsets.UTF_8).lines().findFirst().orElse("");
                first = line.toCharArray();
                second = first.clone();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        if (first == null || first.length == 0 || !Arrays.equals(first, second)) {
            System.err.println("the passwords are empty or differ; nothing made");
            System.exit(2);
        }
        System.out.println(create(first));
        Arrays.fill(first, '\0');
        Arrays.fill(second, '\0');
    }
}
