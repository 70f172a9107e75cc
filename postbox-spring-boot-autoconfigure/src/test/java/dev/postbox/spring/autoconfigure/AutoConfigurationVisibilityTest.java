package dev.postbox.spring.autoconfigure;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.annotation.ImportCandidates;

import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The auto-configurations Boot loads from the imports file are package-private (Boot instantiates them
 * reflectively), except the two that applications and the other auto-configurations name: {@link
 * PostboxAutoConfiguration} (ordered after by the others, {@code PUBLISHER_BEAN}) and the health one
 * ({@code BEAN_NAME}). A new public one is a decision to make here, not an accident.
 */
class AutoConfigurationVisibilityTest {

    private static final Set<String> PUBLIC = Set.of(PostboxAutoConfiguration.class.getName(),
            "dev.postbox.spring.autoconfigure.health.PostboxHealthAutoConfiguration");

    @Test
    void onlyTheAutoConfigurationsApplicationsNameArePublic() throws Exception {
        List<String> candidates = new ArrayList<>();
        ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader()).forEach(candidates::add);
        List<String> ours = candidates.stream().filter(n -> n.startsWith("dev.postbox.")).toList();
        assertThat(ours).hasSize(11).containsAll(PUBLIC);
        List<String> publicOnes = new ArrayList<>();
        for (String name : ours) {
            Class<?> type = Class.forName(name, false, getClass().getClassLoader());
            assertThat(type.getAnnotation(AutoConfiguration.class)).as(name + " is an @AutoConfiguration").isNotNull();
            if (Modifier.isPublic(type.getModifiers())) {
                publicOnes.add(name);
            }
        }
        assertThat(publicOnes).containsExactlyInAnyOrderElementsOf(PUBLIC);
    }
}
