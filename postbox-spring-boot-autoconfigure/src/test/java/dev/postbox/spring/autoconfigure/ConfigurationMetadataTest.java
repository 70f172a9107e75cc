package dev.postbox.spring.autoconfigure;

import org.junit.jupiter.api.Test;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataProperty;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepository;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepositoryJsonBuilder;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.core.convert.ConversionService;
import org.springframework.core.convert.TypeDescriptor;

import java.io.InputStream;
import java.net.URL;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The IDE completion data (spring-configuration-metadata.json, generated plus the hand-written additional
 * file) tells the truth: every postbox.* property is documented, and every default it shows is the value a
 * fresh properties object really has, which is the core's named constant.
 */
class ConfigurationMetadataTest {

    /**
     * Properties with no default on purpose: unset means "derive it" (source, instance ids) or "none"
     * (besides those whose fresh value is null or an empty map).
     */
    private static final Set<String> NO_DEFAULT = Set.of("postbox.source",
            "postbox.relay.instance-id", "postbox.worker.instance-id", "postbox.relay.unordered-topics",
            "postbox.retention.instance-id", "postbox.retention.archive", "postbox.retention.duty-cycle",
            "postbox.console.users");

    private static Map<String, ConfigurationMetadataProperty> postboxProperties() throws Exception {
        ConfigurationMetadataRepositoryJsonBuilder builder = ConfigurationMetadataRepositoryJsonBuilder.create();
        Enumeration<URL> files = ConfigurationMetadataTest.class.getClassLoader()
                .getResources("META-INF/spring-configuration-metadata.json");
        int found = 0;
        while (files.hasMoreElements()) {
            URL url = files.nextElement();
            if (!url.toString().contains("postbox-spring-boot-autoconfigure")) {
                continue;
            }
            try (InputStream in = url.openStream()) {
                builder.withJsonResource(in);
                found++;
            }
        }
        assertThat(found).as("the module's generated metadata file").isEqualTo(1);
        ConfigurationMetadataRepository repo = builder.build();
        Map<String, ConfigurationMetadataProperty> result = new TreeMap<>();
        repo.getAllProperties().forEach((name, p) -> {
            if (name.startsWith("postbox.")) {
                result.put(name, p);
            }
        });
        return result;
    }

    @Test
    void everyPropertyHasADescriptionAndEveryShownDefaultIsTheRealDefault() throws Exception {
        Map<String, ConfigurationMetadataProperty> properties = postboxProperties();
        assertThat(properties).containsKeys("postbox.relay.batch-size", "postbox.worker.stuck-timeout",
                "postbox.event-bus.channels", "postbox.health.max-dead",
                "postbox.console.enabled", "postbox.console.path", "postbox.console.security.operator-authority");
        Map<String, Object> fresh = Map.of(
                "postbox.kafka.", new dev.postbox.spring.autoconfigure.transport.KafkaTransportProperties(),
                "postbox.rabbitmq.", new dev.postbox.spring.autoconfigure.transport.RabbitTransportProperties(),
                "postbox.nats.", new dev.postbox.spring.autoconfigure.transport.NatsTransportProperties(),
                "postbox.http.", new dev.postbox.spring.autoconfigure.transport.HttpTransportProperties(),
                "postbox.console.", new dev.postbox.spring.autoconfigure.console.ConsoleProperties(),
                "postbox.", new PostboxProperties());
        ConversionService conversion = ApplicationConversionService.getSharedInstance();
        List<String> problems = new ArrayList<>();
        for (ConfigurationMetadataProperty p : properties.values()) {
            if (p.getDescription() == null || p.getDescription().isBlank()) {
                problems.add(p.getId() + ": no description");
            }
            String prefix = fresh.keySet().stream().filter(k -> !k.equals("postbox.") && p.getId().startsWith(k))
                    .findFirst().orElse("postbox.");
            Object actual = valueOf(fresh.get(prefix), prefix, p.getId());
            if (actual == PATH_NOT_HERE) {
                problems.add(p.getId() + ": not a property of " + fresh.get(prefix).getClass().getSimpleName());
                continue;
            }
            Object shown = p.getDefaultValue();
            if (shown == null) {
                boolean none = actual == null || actual instanceof Map<?, ?> m && m.isEmpty();
                if (!none && !NO_DEFAULT.contains(p.getId())) {
                    problems.add(p.getId() + ": metadata shows no default, the real one is " + actual);
                }
                continue;
            }
            if (!sameValue(conversion, shown, actual)) {
                problems.add(p.getId() + ": metadata shows " + shown + ", the real default is " + actual);
            }
        }
        assertThat(problems).isEmpty();
    }

    private static final Object PATH_NOT_HERE = new Object();

    private static Object valueOf(Object root, String prefix, String id) {
        String[] parts = id.substring(prefix.length()).split("\\.");
        StringBuilder path = new StringBuilder();
        for (String part : parts) {
            if (path.length() > 0) {
                path.append('.');
            }
            path.append(camel(part));
        }
        BeanWrapperImpl w = new BeanWrapperImpl(root);
        if (!w.isReadableProperty(path.toString())) {
            return PATH_NOT_HERE;
        }
        return w.getPropertyValue(path.toString());
    }

    private static String camel(String kebab) {
        StringBuilder b = new StringBuilder();
        boolean up = false;
        for (char ch : kebab.toCharArray()) {
            if (ch == '-') {
                up = true;
            } else {
                b.append(up ? Character.toUpperCase(ch) : ch);
                up = false;
            }
        }
        return b.toString();
    }

    private static boolean sameValue(ConversionService conversion, Object shown, Object actual) {
        if (actual == null) {
            return false;
        }
        if (actual instanceof Collection<?> c) {
            List<String> shownList = new ArrayList<>();
            if (shown instanceof Object[] arr) {
                for (Object o : arr) {
                    shownList.add(String.valueOf(o));
                }
            } else if (shown instanceof Collection<?> sc) {
                sc.forEach(o -> shownList.add(String.valueOf(o)));
            } else {
                shownList.add(String.valueOf(shown));
            }
            return new ArrayList<>(c.stream().map(String::valueOf).toList()).equals(shownList);
        }
        if (actual instanceof Enum<?> e) {
            return e.name().equalsIgnoreCase(String.valueOf(shown).replace('-', '_'));
        }
        Object converted = conversion.convert(String.valueOf(shown), TypeDescriptor.valueOf(String.class),
                TypeDescriptor.forObject(actual));
        if (actual instanceof Duration d) {
            return d.equals(converted);
        }
        return actual.equals(converted);
    }
}
