package dev.postbox.opentelemetry;

import dev.postbox.testing.PublicSurface;
import org.junit.jupiter.api.Test;

/**
 * This binding's public surface is the recorded one ({@code src/test/resources/api/public-surface.txt})
 * and mentions no internal type. After an intended API change, re-record it:
 * {@code mvn -B -pl postbox-opentelemetry -am test -Dtest=PublicSurfaceTest -Dsurefire.failIfNoSpecifiedTests=false -Dpostbox.api.record=true}.
 */
class PublicSurfaceTest {

    @Test
    void publicSurfaceIsTheRecordedOneAndMentionsNoInternalType() {
        PublicSurface.check(OpenTelemetryTracing.class);
    }
}
