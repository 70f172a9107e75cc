package dev.postbox.server.config;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** README's server configuration example is a valid file as it stands. */
class ReadmeConfigTest {

    @Test
    void theReadmesExampleLoads() throws Exception {
        String readme = Files.readString(Path.of("../README.md"));
        int section = readme.indexOf("## Standalone server (`postbox-server`)");
        assertThat(section).as("README's server section").isPositive();
        int start = readme.indexOf("```yaml\n", section) + "```yaml\n".length();
        String yaml = readme.substring(start, readme.indexOf("```", start));
        Map<String, String> env = Map.of("ORDERS_DB_PASSWORD", "p", "RABBIT_PASSWORD", "r", "HOOK_SECRET", "h",
                "POSTBOX_API_TOKEN", "a-token-of-twenty-chars", "ANN_HASH", "pbkdf2-sha256$600000$c2FsdA$aGFzaA");
        ServerConfig c = new ConfigLoader(env::get).parse("README.md", yaml);
        assertThat(c.sources().get("shop").bulkheads()).hasSize(2);
        assertThat(c.routes()).hasSize(3);
        assertThat(c.destinations()).containsOnlyKeys("kafka", "rabbit", "nats", "hooks");
        assertThat(c.server().apiToken()).isEqualTo("a-token-of-twenty-chars");
        assertThat(c.server().console().users()).containsOnlyKeys("ann");
        assertThat(c.tracing()).isEqualTo(new ServerConfig.Tracing(true, "http://otel-collector:4318", "postbox-server",
                1.0));
    }
}
