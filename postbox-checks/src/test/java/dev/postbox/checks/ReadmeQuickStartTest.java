package dev.postbox.checks;

import dev.postbox.Postbox;
import dev.postbox.outbox.OutboxEvent;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.OutboxStatus;
import dev.postbox.spring.TransactionalOutbox;
import dev.postbox.testing.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * README's Spring Boot quick start, as pasted: its first java block (a whole compilation unit) is compiled, its
 * components are registered in a Spring Boot application with the starter, no transport and H2 (what a new
 * application has), the service places an order, and the event must be PUBLISHED and received by the README's own
 * subscriber. A quick start that writes to a channel the default configuration does not route fails here (DEAD).
 */
class ReadmeQuickStartTest {

    private static final String SECTION = "## Spring Boot";

    @TempDir
    Path classes;

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class Application {
    }

    @Test
    void theQuickStartPublishesItsEventToItsSubscriberAsPasted() throws Exception {
        JavaBlock quickStart = quickStart();
        SnippetCompiler.Result compiled = new SnippetCompiler(classes).compile(List.of(quickStart));
        assertThat(compiled.errors()).as("compiler errors in README's quick start").isEmpty();

        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream stdout = System.out;
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()}, getClass().getClassLoader())) {
            List<Class<?>> components = components(loader, quickStart);
            Class<?> service = components.stream().filter(c -> place(c).isPresent()).findFirst()
                    .orElseThrow(() -> new AssertionError(quickStart.location() + ": no component with a method place(String)"));
            System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
            try (ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
                    .sources(components.toArray(Class<?>[]::new))
                    .resourceLoader(new DefaultResourceLoader(loader))
                    .web(WebApplicationType.NONE)
                    .properties("spring.application.name=order-service",      // README: names the events' source
                            "spring.flyway.enabled=false",                      // Flyway is here for a snippet only
                            "spring.main.banner-mode=off")
                    .run()) {
                JdbcClient jdbc = context.getBean(JdbcClient.class);
                jdbc.sql("CREATE TABLE t_order (order_no VARCHAR(64) PRIMARY KEY, user_id VARCHAR(64) NOT NULL,"
                        + " status VARCHAR(16) NOT NULL)").update();            // the application's own table
                Postbox postbox = context.getBean(Postbox.class);

                String orderNo = (String) place(service).orElseThrow().invoke(context.getBean(service), "u1");

                assertThat(jdbc.sql("SELECT status FROM t_order WHERE order_no = ?").param(orderNo)
                        .query(String.class).list()).containsExactly("CREATED");
                String eventNo = "ORDER_CREATED:" + orderNo;
                awaitStatus(postbox, eventNo, OutboxStatus.PUBLISHED);
                assertThat(printed.toString(StandardCharsets.UTF_8)).as("what the README's subscriber printed")
                        .contains(eventNo);

                // the premise: an event on a channel the default configuration does not route (README's old "MQ")
                // goes DEAD, which the wait above would report
                TransactionalOutbox outbox = context.getBean(TransactionalOutbox.class);
                context.getBean(TransactionTemplate.class).executeWithoutResult(tx -> outbox.write(OutboxEvent.builder()
                        .eventNo("UNROUTED:" + orderNo).aggregate("ORDER", "other-" + orderNo).eventType("ORDER_CREATED")
                        .channel("MQ").topic("order.event").payload("{}").build()));
                awaitStatus(postbox, "UNROUTED:" + orderNo, OutboxStatus.DEAD);
            }
        } finally {
            System.setOut(stdout);
        }
    }

    private static void awaitStatus(Postbox postbox, String eventNo, OutboxStatus status) {
        Await.until(eventNo + " " + status, Duration.ofSeconds(15), () -> {
                    OutboxRecord r = postbox.queries().outbox().byEventNo(eventNo).orElse(null);
                    if (r != null && r.status() == OutboxStatus.DEAD && status != OutboxStatus.DEAD) {
                        throw new AssertionError(eventNo + " is DEAD, not " + status + ": " + r.failReason());
                    }
                    return r != null && r.status() == status;
                },
                () -> postbox.queries().outbox().byEventNo(eventNo)
                        .map(r -> r.status() + " (" + r.failReason() + ")").orElse("no such event"));
    }

    /** README's first java block after the heading "## Spring Boot". */
    private static JavaBlock quickStart() {
        String readme = Readme.text();
        List<String> lines = readme.lines().toList();
        int heading = lines.indexOf(SECTION) + 1;
        assertThat(heading).as("README.md has the heading '%s'", SECTION).isPositive();
        return JavaBlock.parse("README.md", readme).stream().filter(b -> b.fenceLine() > heading).findFirst()
                .orElseThrow(() -> new AssertionError("README.md: no java block after '" + SECTION + "'"));
    }

    /** The block's top-level classes that are Spring components (as a component scan of its package finds them). */
    private List<Class<?>> components(ClassLoader loader, JavaBlock block) throws IOException, ClassNotFoundException {
        String pkg = SnippetCompiler.packageOf(block);
        List<Class<?>> components = new ArrayList<>();
        try (Stream<Path> files = Files.list(classes.resolve(pkg.replace('.', '/')))) {
            for (Path file : files.sorted().toList()) {
                String name = file.getFileName().toString();
                if (name.endsWith(".class") && !name.contains("$")) {
                    Class<?> type = loader.loadClass(pkg + "." + name.substring(0, name.length() - ".class".length()));
                    if (AnnotatedElementUtils.hasAnnotation(type, Component.class)) {
                        components.add(type);
                    }
                }
            }
        }
        assertThat(components).as("%s: Spring components", block.location()).isNotEmpty();
        return components;
    }

    private static Optional<Method> place(Class<?> type) {
        try {
            return Optional.of(type.getMethod("place", String.class));
        } catch (NoSuchMethodException e) {
            return Optional.empty();
        }
    }
}
