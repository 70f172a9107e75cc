package dev.postbox.checks;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Every artifact a user can depend on (the BOM's) has its sources jar and its javadoc jar, as Maven Central requires
 * and IDEs use; and every module the build deploys is in the BOM. Runs after the reactor packaged the modules this
 * module depends on (all of them), in the integration-test phase: {@code mvn verify}.
 */
class PublishedArtifactsIT {

    private final Path root = Readme.root();
    private final String version = System.getProperty("postbox.version");

    @Test
    void everyArtifactOfTheBomHasItsSourcesAndJavadocJar() {
        assertThat(version).as("system property postbox.version").isNotBlank();
        Map<String, Poms.Module> modules = Poms.modules(root);
        List<String> published = Poms.bomArtifacts(root);
        assertThat(published).as("the BOM's artifacts").contains("postbox-core", "postbox-spring-boot-starter");

        List<String> problems = new ArrayList<>();
        for (String artifact : published) {
            Poms.Module module = modules.get(artifact);
            if (module == null) {
                problems.add(artifact + ": in the BOM but no module of the root POM");
                continue;
            }
            Path target = module.dir().resolve("target");
            check(target.resolve(artifact + "-" + version + "-sources.jar"), ".java", problems);
            check(target.resolve(artifact + "-" + version + "-javadoc.jar"), "index.html", problems);
        }
        if (!problems.isEmpty()) {
            fail("published artifacts without their sources or javadoc jar:\n" + String.join("\n", problems));
        }
    }

    @Test
    void everyModuleTheBuildDeploysIsInTheBom() {
        List<String> published = Poms.bomArtifacts(root);

        assertThat(Poms.modules(root).values()).filteredOn(m -> m.deployed() && !m.packaging().equals("pom"))
                .extracting(Poms.Module::artifactId)
                .as("modules without maven.deploy.skip=true (the published ones) are in the BOM")
                .isNotEmpty()
                .allMatch(published::contains);
    }

    /** {@code jar} exists and has an entry whose name ends with {@code entry}. */
    private static void check(Path jar, String entry, List<String> problems) {
        if (!Files.isRegularFile(jar)) {
            problems.add(jar + ": missing");
            return;
        }
        try (JarFile file = new JarFile(jar.toFile())) {
            if (file.stream().noneMatch(e -> e.getName().endsWith(entry))) {
                problems.add(jar + ": has no " + entry);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
