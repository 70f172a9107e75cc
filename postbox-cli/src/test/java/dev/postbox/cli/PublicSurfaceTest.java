package dev.postbox.cli;

import dev.postbox.testing.PublicSurface;
import org.junit.jupiter.api.Test;

/**
 * The CLI's public surface is the recorded one ({@code src/test/resources/api/public-surface.txt}): only the
 * {@code main} of {@link PostboxCli}; every command is package-private. After an intended change, re-record it:
 * {@code mvn -B -pl postbox-cli -am test -Dtest=PublicSurfaceTest -Dsurefire.failIfNoSpecifiedTests=false -Dpostbox.api.record=true}.
 */
class PublicSurfaceTest {

    @Test
    void publicSurfaceIsOnlyTheMainMethod() {
        PublicSurface.check(PostboxCli.class);
    }
}
