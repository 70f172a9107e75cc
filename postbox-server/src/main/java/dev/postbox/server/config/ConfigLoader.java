package dev.postbox.server.config;

import dev.postbox.common.ValidationException;
import dev.postbox.jdbc.TableNames;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a server's YAML file into a {@link ServerConfig}, checking everything that can be checked without connecting:
 * the structure, every key (an unknown one is an error, so that a misspelt setting never goes unnoticed), types, ranges,
 * names, and that routes name sources and destinations that exist. Every problem is collected and reported at once,
 * each naming its key ({@link ConfigException}).
 *
 * <p>Any scalar may refer to the environment: {@code ${NAME}} (required) or {@code ${NAME:default}}, so secrets stay
 * out of the file; <code>$${</code> writes a literal <code>${</code>.
 *
 * <pre>{@code
 * sources:
 *   orders:
 *     jdbc-url: jdbc:postgresql://db:5432/orders
 *     username: relay
 *     password: ${ORDERS_DB_PASSWORD}
 * destinations:
 *   rabbit: {type: rabbitmq, host: rabbit, password: ${RABBIT_PASSWORD}}
 * routes:
 *   - {source: orders, channel: RABBITMQ, destination: rabbit}
 * }</pre>
 */
public final class ConfigLoader {

    static final Set<String> TOP = Set.of("server", "sources", "destinations", "routes", "tracing");
    static final Set<String> SERVER = Set.of("address", "port", "instance-id", "api-token", "console", "json-logs");
    static final Set<String> CONSOLE = Set.of("enabled", "read-only", "users");
    static final Set<String> CONSOLE_USER = Set.of("password-hash", "role");
    static final Set<String> ROLES = Set.of("viewer", "operator", "admin");
    static final Set<String> SOURCE = Set.of("jdbc-url", "username", "password", "table-prefix", "tenants", "pool-size",
            "relay");
    static final Set<String> RELAY = Set.of("batch-size", "pool-size", "in-flight-batches", "lease-duration",
            "send-timeout", "poll-interval-min", "poll-interval-max", "ordered", "unordered-topics", "retry-base",
            "retry-cap", "heartbeat-interval");
    static final List<String> TYPES = List.of("kafka", "rabbitmq", "nats", "http");
    static final Map<String, Set<String>> DESTINATION = Map.of(
            "kafka", Set.of("type", "max-in-flight", "breaker-failures", "breaker-probe-interval", "bootstrap-servers",
                    "client-id", "producer"),
            "rabbitmq", Set.of("type", "max-in-flight", "breaker-failures", "breaker-probe-interval", "host", "port",
                    "username", "password", "virtual-host"),
            "nats", Set.of("type", "max-in-flight", "breaker-failures", "breaker-probe-interval", "url", "subject-prefix"),
            "http", Set.of("type", "max-in-flight", "breaker-failures", "breaker-probe-interval", "url", "secret",
                    "request-timeout"));
    static final Set<String> ROUTE = Set.of("source", "channel", "topic", "destination");
    static final Set<String> TRACING = Set.of("enabled", "otlp-endpoint", "service-name", "sampler-ratio");
    static final List<String> JDBC = List.of("jdbc:postgresql:", "jdbc:mariadb:", "jdbc:mysql:", "jdbc:h2:");

    /** Default HTTP port of health, metrics and the console. */
    public static final int DEFAULT_PORT = 8088;
    /** Default size of a source's own connection pool. */
    public static final int DEFAULT_SOURCE_POOL = 4;
    /** Default bound on the sends to one destination at once. */
    public static final int DEFAULT_MAX_IN_FLIGHT = 4096;

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,62}");
    private static final Pattern VARIABLE = Pattern.compile("\\$\\$\\{|\\$\\{([A-Za-z_][A-Za-z0-9_]*)(?::([^}]*))?}");
    private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

    private final Function<String, String> environment;

    /** A loader reading {@code ${...}} from the process's environment. */
    public ConfigLoader() {
        this(System::getenv);
    }

    /** A loader reading {@code ${...}} from {@code environment} (tests). */
    public ConfigLoader(Function<String, String> environment) {
        this.environment = Objects.requireNonNull(environment, "environment");
    }

    /** Reads and checks {@code file}. */
    public ServerConfig load(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ConfigException(file.toString(), List.of("cannot be read: " + e));
        }
        return parse(file.toString(), text);
    }

    /** Reads and checks {@code yaml}; {@code name} names it in messages. */
    public ServerConfig parse(String name, String yaml) {
        Object root;
        try {
            LoaderOptions options = new LoaderOptions();
            options.setAllowDuplicateKeys(false);
            options.setMaxAliasesForCollections(20);
            root = new Yaml(new SafeConstructor(options)).load(yaml);
        } catch (MarkedYAMLException e) {
            throw new ConfigException(name, List.of("not valid YAML at line " + (e.getProblemMark().getLine() + 1)
                    + ", column " + (e.getProblemMark().getColumn() + 1) + ": " + e.getProblem()));
        } catch (YAMLException e) {
            throw new ConfigException(name, List.of("not valid YAML: " + e.getMessage()));
        }
        Reader r = new Reader();
        ServerConfig config = r.config(root);
        if (!r.problems.isEmpty()) {
            throw new ConfigException(name, r.problems);
        }
        return config;
    }

    /** The YAML tree read with paths, collecting problems instead of stopping at the first. */
    private final class Reader {
        final List<String> problems = new ArrayList<>();

        void problem(String key, String what) {
            problems.add((key.isEmpty() ? "(the file)" : key) + ": " + what);
        }

        ServerConfig config(Object root) {
            if (root == null) {
                problem("", "is empty: it needs sources, destinations and routes");
                return null;
            }
            Map<String, Object> top = map(root, "");
            if (top == null) {
                return null;
            }
            only(top, "", TOP);
            ServerConfig.Server server = server(top.get("server"));
            Map<String, ServerConfig.Source> sources = new LinkedHashMap<>();
            Map<String, Object> s = named(top.get("sources"), "sources", "source");
            if (s != null) {
                s.forEach((n, v) -> {
                    ServerConfig.Source source = source(n, v);
                    if (source != null) {
                        sources.put(n, source);
                    }
                });
            }
            Map<String, ServerConfig.Destination> destinations = new LinkedHashMap<>();
            Map<String, Object> d = named(top.get("destinations"), "destinations", "destination");
            if (d != null) {
                d.forEach((n, v) -> {
                    ServerConfig.Destination destination = destination(n, v);
                    if (destination != null) {
                        destinations.put(n, destination);
                    }
                });
            }
            List<ServerConfig.Route> routes = routes(top.get("routes"), s == null ? Set.of() : s.keySet(),
                    d == null ? Set.of() : d.keySet());
            if (s != null) {
                Set<String> routed = new LinkedHashSet<>();
                routes.forEach(route -> routed.add(route.source()));
                for (String source : s.keySet()) {
                    if (!routed.contains(source)) {
                        problem("sources." + source, "no route reads from it: add a route with source: " + source
                                + " (its events would go DEAD as unrouted), or remove the source");
                    }
                }
            }
            return new ServerConfig(server, sources, destinations, routes, tracing(top.get("tracing")));
        }

        /** The {@code tracing:} section, checked here; whether the server traces is decided at its start. */
        ServerConfig.Tracing tracing(Object node) {
            Map<String, Object> m = node == null ? null : map(node, "tracing");
            if (m == null) {
                return ServerConfig.Tracing.NONE;
            }
            only(m, "tracing", TRACING);
            String endpoint = string(m, "tracing", "otlp-endpoint", false, null);
            httpUrl("tracing.otlp-endpoint", endpoint);
            String service = string(m, "tracing", "service-name", false, null);
            if (service != null && service.isBlank()) {
                problem("tracing.service-name", "must not be blank (leave it out for the default, "
                        + ServerConfig.Tracing.DEFAULT_SERVICE_NAME + ")");
                service = null;
            }
            return new ServerConfig.Tracing(bool(m, "tracing", "enabled"), endpoint, service,
                    ratio(m, "tracing", "sampler-ratio"));
        }

        ServerConfig.Server server(Object node) {
            Map<String, Object> m = node == null ? Map.of() : map(node, "server");
            if (m == null) {
                m = Map.of();
            }
            only(m, "server", SERVER);
            String address = string(m, "server", "address", false, "0.0.0.0");
            Integer port = integer(m, "server", "port", 0, 65535, DEFAULT_PORT);
            String instance = string(m, "server", "instance-id", false, null);
            String token = string(m, "server", "api-token", false, null);
            if (token != null && token.length() < 16) {
                problem("server.api-token", "must be at least 16 characters (was " + token.length() + ")");
            }
            Boolean json = bool(m, "server", "json-logs");
            return new ServerConfig.Server(address, port == null ? DEFAULT_PORT : port, instance,
                    token == null || token.isEmpty() ? null : token, console(m.get("console")), json != null && json);
        }

        ServerConfig.Console console(Object node) {
            if (node == null) {
                return ServerConfig.Console.DEFAULT;
            }
            Map<String, Object> m = map(node, "server.console");
            if (m == null) {
                return ServerConfig.Console.DEFAULT;
            }
            only(m, "server.console", CONSOLE);
            Boolean enabled = bool(m, "server.console", "enabled");
            Boolean readOnly = bool(m, "server.console", "read-only");
            Map<String, ServerConfig.ConsoleUser> users = new LinkedHashMap<>();
            Object u = m.get("users");
            Map<String, Object> um = u == null ? Map.of() : map(u, "server.console.users");
            if (um != null) {
                for (Map.Entry<String, Object> e : um.entrySet()) {
                    String key = "server.console.users." + e.getKey();
                    Map<String, Object> user = map(e.getValue(), key);
                    if (user == null) {
                        continue;
                    }
                    only(user, key, CONSOLE_USER);
                    String hash = string(user, key, "password-hash", true, null);
                    if (hash != null && !hash.isBlank() && !hash.startsWith("pbkdf2")) {
                        problem(key + ".password-hash", "must be a hash from 'postbox-server hash-password', never"
                                + " the password itself");
                    }
                    String role = string(user, key, "role", false, "viewer");
                    if (role != null && !ROLES.contains(role.toLowerCase(Locale.ROOT))) {
                        problem(key + ".role", "must be viewer, operator or admin (was '" + role + "')");
                    }
                    users.put(e.getKey(), new ServerConfig.ConsoleUser(e.getKey(), hash,
                            role == null ? "viewer" : role.toLowerCase(Locale.ROOT)));
                }
            }
            return new ServerConfig.Console(enabled == null || enabled, readOnly != null && readOnly, users);
        }

        /** A map of names to entries: non-empty, each name usable in messages, metrics and tenants' names. */
        Map<String, Object> named(Object node, String key, String what) {
            if (node == null) {
                problem(key, "at least one " + what + " is required");
                return null;
            }
            Map<String, Object> m = map(node, key);
            if (m == null) {
                return null;
            }
            if (m.isEmpty()) {
                problem(key, "at least one " + what + " is required");
            }
            for (String n : m.keySet()) {
                if (!NAME.matcher(n).matches()) {
                    problem(key + "." + n, "not a usable " + what + " name: letters, digits, '_', '.', '-', at most 63,"
                            + " starting with a letter or digit");
                }
            }
            return m;
        }

        ServerConfig.Source source(String name, Object node) {
            String key = "sources." + name;
            Map<String, Object> m = map(node, key);
            if (m == null) {
                return null;
            }
            only(m, key, SOURCE);
            String url = string(m, key, "jdbc-url", true, null);
            if (url != null && JDBC.stream().noneMatch(url::startsWith)) {
                problem(key + ".jdbc-url", "must start with " + String.join(", ", JDBC) + " (was '" + url + "')");
            }
            String user = string(m, key, "username", false, null);
            String password = string(m, key, "password", false, null);
            String prefix = string(m, key, "table-prefix", false, dev.postbox.common.PostboxDefaults.TABLE_PREFIX);
            prefix(key + ".table-prefix", prefix);
            Map<String, String> tenants = new LinkedHashMap<>();
            if (m.containsKey("tenants")) {
                if (m.containsKey("table-prefix")) {
                    problem(key + ".table-prefix", "set either table-prefix or tenants (each tenant names its prefix)");
                }
                Map<String, Object> t = map(m.get("tenants"), key + ".tenants");
                if (t != null) {
                    if (t.isEmpty()) {
                        problem(key + ".tenants", "names no tenant: tenant-name: table-prefix, one per line");
                    }
                    Map<String, String> byPrefix = new HashMap<>();
                    t.forEach((tenant, p) -> {
                        String tk = key + ".tenants." + tenant;
                        if (!NAME.matcher(tenant).matches()) {
                            problem(tk, "not a usable tenant name: letters, digits, '_', '.', '-'");
                        }
                        String tp = scalar(p, tk);
                        if (tp == null) {
                            return;
                        }
                        prefix(tk, tp);
                        String before = byPrefix.putIfAbsent(tp, tenant);
                        if (before != null) {
                            problem(tk, "has the table prefix '" + tp + "' of tenant " + before
                                    + ": each tenant needs tables of its own");
                        }
                        tenants.put(tenant, tp);
                    });
                }
            }
            Integer pool = integer(m, key, "pool-size", 1, 64, DEFAULT_SOURCE_POOL);
            ServerConfig.RelaySettings relay = relay(m.get("relay"), key + ".relay");
            return new ServerConfig.Source(name, url, user, password, prefix, tenants,
                    pool == null ? DEFAULT_SOURCE_POOL : pool, relay);
        }

        void prefix(String key, String prefix) {
            if (prefix == null) {
                return;
            }
            try {
                new TableNames(prefix);
            } catch (ValidationException e) {
                problem(key, e.getMessage().substring(e.field().length() + 2));
            }
        }

        ServerConfig.RelaySettings relay(Object node, String key) {
            if (node == null) {
                return ServerConfig.RelaySettings.defaults();
            }
            Map<String, Object> m = map(node, key);
            if (m == null) {
                return ServerConfig.RelaySettings.defaults();
            }
            only(m, key, RELAY);
            return new ServerConfig.RelaySettings(
                    integer(m, key, "batch-size", 1, dev.postbox.relay.RelayDefaults.MAX_BATCH_SIZE, null),
                    integer(m, key, "pool-size", 1, 64, null),
                    integer(m, key, "in-flight-batches", 1, dev.postbox.relay.RelayDefaults.MAX_IN_FLIGHT_BATCHES, null),
                    atLeast(duration(m, key, "lease-duration"), dev.postbox.relay.RelayDefaults.MIN_LEASE,
                            key + ".lease-duration"), duration(m, key, "send-timeout"),
                    duration(m, key, "poll-interval-min"), duration(m, key, "poll-interval-max"),
                    bool(m, key, "ordered"), strings(m, key, "unordered-topics"),
                    duration(m, key, "retry-base"), duration(m, key, "retry-cap"), duration(m, key, "heartbeat-interval"));
        }

        ServerConfig.Destination destination(String name, Object node) {
            String key = "destinations." + name;
            Map<String, Object> m = map(node, key);
            if (m == null) {
                return null;
            }
            String type = string(m, key, "type", true, null);
            if (type == null) {
                return null;
            }
            type = type.toLowerCase(Locale.ROOT);
            if (!TYPES.contains(type)) {
                problem(key + ".type", "must be one of " + String.join(", ", TYPES) + " (was '" + type + "')");
                return null;
            }
            only(m, key, DESTINATION.get(type));
            Integer inFlight = integer(m, key, "max-in-flight", 1, 100_000, DEFAULT_MAX_IN_FLIGHT);
            int maxInFlight = inFlight == null ? DEFAULT_MAX_IN_FLIGHT : inFlight;
            ServerConfig.Breaker breaker = breaker(m, key);
            switch (type) {
                case "kafka" -> {
                    String servers = string(m, key, "bootstrap-servers", true, null);
                    Map<String, String> producer = new LinkedHashMap<>();
                    if (m.get("producer") != null) {
                        Map<String, Object> p = map(m.get("producer"), key + ".producer");
                        if (p != null) {
                            p.forEach((k, v) -> {
                                String value = scalar(v, key + ".producer." + k);
                                if (value != null) {
                                    producer.put(k, value);
                                }
                            });
                        }
                    }
                    return new ServerConfig.Kafka(name, maxInFlight, breaker, servers,
                            string(m, key, "client-id", false, "postbox-server-" + name), producer);
                }
                case "rabbitmq" -> {
                    String host = string(m, key, "host", true, null);
                    Integer port = integer(m, key, "port", 1, 65535, 5672);
                    return new ServerConfig.RabbitMq(name, maxInFlight, breaker, host, port == null ? 5672 : port,
                            string(m, key, "username", false, "guest"), string(m, key, "password", false, "guest"),
                            string(m, key, "virtual-host", false, "/"));
                }
                case "nats" -> {
                    String urls = string(m, key, "url", true, null);
                    List<String> list = new ArrayList<>();
                    if (urls != null) {
                        for (String u : urls.split(",")) {
                            String url = u.trim();
                            if (!url.startsWith("nats://") && !url.startsWith("tls://")) {
                                problem(key + ".url", "each server must be nats://host:port or tls://host:port (was '"
                                        + url + "')");
                            }
                            list.add(url);
                        }
                    }
                    return new ServerConfig.Nats(name, maxInFlight, breaker, list, string(m, key, "subject-prefix", false, ""));
                }
                default -> {
                    String url = string(m, key, "url", true, null);
                    httpUrl(key + ".url", url);
                    Duration timeout = duration(m, key, "request-timeout");
                    return new ServerConfig.Http(name, maxInFlight, breaker, url, string(m, key, "secret", false, null),
                            timeout == null ? Duration.ofSeconds(10) : timeout);
                }
            }
        }

        /** {@code breaker-failures} (2..1000) and {@code breaker-probe-interval} (100ms..10m); defaults 5 and 1s. */
        ServerConfig.Breaker breaker(Map<String, Object> m, String key) {
            ServerConfig.Breaker d = ServerConfig.Breaker.DEFAULT;
            Integer failures = integer(m, key, "breaker-failures", 2, 1000, d.failures());
            Duration probe = duration(m, key, "breaker-probe-interval");
            if (probe != null && (probe.compareTo(Duration.ofMillis(100)) < 0 || probe.compareTo(Duration.ofMinutes(10)) > 0)) {
                problem(key + ".breaker-probe-interval", "must be from 100ms to 10m (was " + probe.toMillis() + "ms)");
                probe = null;
            }
            return new ServerConfig.Breaker(failures == null ? d.failures() : failures,
                    probe == null ? d.probeInterval() : probe);
        }

        List<ServerConfig.Route> routes(Object node, Set<String> sources, Set<String> destinations) {
            List<ServerConfig.Route> out = new ArrayList<>();
            if (node == null) {
                problem("routes", "at least one route is required: - {source: S, channel: C, destination: D}");
                return out;
            }
            if (!(node instanceof List<?> list)) {
                problem("routes", "must be a list of routes (- source: ..., channel: ..., destination: ...)");
                return out;
            }
            if (list.isEmpty()) {
                problem("routes", "at least one route is required: - {source: S, channel: C, destination: D}");
            }
            Map<String, String> seen = new HashMap<>();
            for (int i = 0; i < list.size(); i++) {
                String key = "routes[" + i + "]";
                Map<String, Object> m = map(list.get(i), key);
                if (m == null) {
                    continue;
                }
                only(m, key, ROUTE);
                String source = string(m, key, "source", true, null);
                String channel = string(m, key, "channel", true, null);
                String topic = string(m, key, "topic", false, null);
                String destination = string(m, key, "destination", true, null);
                if (source != null && !sources.contains(source)) {
                    problem(key + ".source", "no source named '" + source + "' (sources: " + String.join(", ", sources) + ")");
                }
                if (destination != null && !destinations.contains(destination)) {
                    problem(key + ".destination", "no destination named '" + destination + "' (destinations: "
                            + String.join(", ", destinations) + ")");
                }
                if (source != null && channel != null) {
                    String what = "channel " + channel + (topic == null ? "" : " topic " + topic) + " of source " + source;
                    String before = seen.putIfAbsent(source + "\u0000" + channel + "\u0000" + topic, key);
                    if (before != null) {
                        problem(key, what + " is routed twice (also " + before + "): give it one destination");
                    }
                }
                out.add(new ServerConfig.Route(i, source, channel, topic, destination));
            }
            return out;
        }

        // ---- scalars --------------------------------------------------------------------------------------------

        @SuppressWarnings("unchecked")
        Map<String, Object> map(Object node, String key) {
            if (node instanceof Map<?, ?> m) {
                for (Object k : m.keySet()) {
                    if (!(k instanceof String)) {
                        problem(key, "has a key that is not a name (" + k + ")");
                        return null;
                    }
                }
                return (Map<String, Object>) m;
            }
            problem(key, "must be a map of keys to values (was " + describe(node) + ")");
            return null;
        }

        void only(Map<String, Object> m, String key, Set<String> allowed) {
            for (String k : m.keySet()) {
                if (!allowed.contains(k)) {
                    problem(key.isEmpty() ? k : key + "." + k, "unknown key (expected one of "
                            + String.join(", ", allowed.stream().sorted().toList()) + ")");
                }
            }
        }

        String string(Map<String, Object> m, String key, String name, boolean required, String fallback) {
            Object v = m.get(name);
            String k = key.isEmpty() ? name : key + "." + name;
            if (v == null) {
                if (required) {
                    problem(k, "is required");
                }
                return fallback;
            }
            String s = scalar(v, k);
            if (s != null && s.isBlank() && required) {
                problem(k, "is required (was blank)");
                return null;
            }
            return s;
        }

        /** A scalar's text with the environment interpolated; null (with a problem) for a map or a list. */
        String scalar(Object v, String key) {
            if (v instanceof Map || v instanceof List) {
                problem(key, "must be a single value (was " + describe(v) + ")");
                return null;
            }
            return v == null ? null : interpolate(String.valueOf(v), key);
        }

        String interpolate(String text, String key) {
            Matcher mm = VARIABLE.matcher(text);
            StringBuilder out = new StringBuilder();
            while (mm.find()) {
                String replacement;
                if (mm.group().equals("$${")) {
                    replacement = "${";
                } else {
                    String value = environment.apply(mm.group(1));
                    if (value == null) {
                        if (mm.group(2) == null) {
                            problem(key, "environment variable " + mm.group(1) + " is not set (give a default with ${"
                                    + mm.group(1) + ":default})");
                            return null;
                        }
                        value = mm.group(2);
                    }
                    replacement = value;
                }
                mm.appendReplacement(out, Matcher.quoteReplacement(replacement));
            }
            mm.appendTail(out);
            return out.toString();
        }

        Integer integer(Map<String, Object> m, String key, String name, int min, int max, Integer fallback) {
            String k = key + "." + name;
            String s = m.containsKey(name) ? scalar(m.get(name), k) : null;
            if (s == null) {
                return fallback;
            }
            int value;
            try {
                value = Integer.parseInt(s.trim());
            } catch (NumberFormatException e) {
                problem(k, "must be a whole number between " + min + " and " + max + " (was '" + s + "')");
                return fallback;
            }
            if (value < min || value > max) {
                problem(k, "must be between " + min + " and " + max + " (was " + value + ")");
                return fallback;
            }
            return value;
        }

        void httpUrl(String key, String url) {
            if (url == null) {
                return;
            }
            try {
                URI u = URI.create(url);
                if (!"http".equals(u.getScheme()) && !"https".equals(u.getScheme()) || u.getHost() == null) {
                    problem(key, "must be an http:// or https:// URL with a host (was '" + url + "')");
                }
            } catch (IllegalArgumentException e) {
                problem(key, "not a URL (" + e.getMessage() + ")");
            }
        }

        /** A number from 0 to 1, or null when absent (or wrong, with a problem). */
        Double ratio(Map<String, Object> m, String key, String name) {
            String k = key + "." + name;
            String s = m.containsKey(name) ? scalar(m.get(name), k) : null;
            if (s == null) {
                return null;
            }
            double value;
            try {
                value = Double.parseDouble(s.trim());
            } catch (NumberFormatException e) {
                value = Double.NaN;
            }
            if (!(value >= 0 && value <= 1)) {
                problem(k, "must be a number from 0 to 1 (was '" + s + "')");
                return null;
            }
            return value;
        }

        Duration duration(Map<String, Object> m, String key, String name) {
            String k = key + "." + name;
            String s = m.containsKey(name) ? scalar(m.get(name), k) : null;
            if (s == null) {
                return null;
            }
            Duration d = parseDuration(s);
            if (d == null) {
                problem(k, "not a duration (was '" + s + "'): write 500ms, 30s, 5m, 1h, 2d or ISO-8601 (PT30S)");
            } else if (d.isNegative() || d.isZero()) {
                problem(k, "must be positive (was '" + s + "')");
                return null;
            }
            return d;
        }

        Duration atLeast(Duration d, Duration min, String key) {
            if (d != null && d.compareTo(min) < 0) {
                problem(key, "must be at least " + min.toMillis() + "ms (was " + d.toMillis() + "ms)");
                return null;
            }
            return d;
        }

        Boolean bool(Map<String, Object> m, String key, String name) {
            String k = key + "." + name;
            String s = m.containsKey(name) ? scalar(m.get(name), k) : null;
            if (s == null) {
                return null;
            }
            return switch (s.trim().toLowerCase(Locale.ROOT)) {
                case "true" -> true;
                case "false" -> false;
                default -> {
                    problem(k, "must be true or false (was '" + s + "')");
                    yield null;
                }
            };
        }

        List<String> strings(Map<String, Object> m, String key, String name) {
            Object v = m.get(name);
            String k = key + "." + name;
            if (v == null) {
                return List.of();
            }
            if (!(v instanceof List<?> list)) {
                String s = scalar(v, k);
                return s == null ? List.of() : List.of(s);
            }
            List<String> out = new ArrayList<>();
            for (int i = 0; i < list.size(); i++) {
                String s = scalar(list.get(i), k + "[" + i + "]");
                if (s != null) {
                    out.add(s);
                }
            }
            return out;
        }
    }

    /** A positive duration written as in the file ({@code 500ms}, {@code 5s}, {@code PT5S}), or null. */
    public static Duration duration(String s) {
        Duration d = s == null ? null : parseDuration(s);
        return d == null || d.isNegative() || d.isZero() ? null : d;
    }

    /** {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h}, {@code 2d} or ISO-8601; null when it is none of them. */
    static Duration parseDuration(String s) {
        String t = s.trim();
        Matcher m = DURATION.matcher(t);
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
        }
        try {
            return Duration.parse(t);
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static String describe(Object node) {
        if (node instanceof Map) {
            return "a map";
        }
        if (node instanceof List) {
            return "a list";
        }
        return node == null ? "nothing" : "'" + node + "'";
    }
}
