package dev.postbox;

import dev.postbox.testing.PublicSurface;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Core's public surface is the recorded one ({@code src/test/resources/api/public-surface.txt}) and
 * mentions no internal type. After an intended API change, re-record it:
 * {@code mvn -B -pl postbox-core -am test -Dtest=PublicSurfaceTest -Dsurefire.failIfNoSpecifiedTests=false
 * -Dpostbox.api.record=true} (or any module list; {@code -am} builds core's test-jar that holds the check).
 */
class PublicSurfaceTest {

    @Test
    void coresPublicSurfaceIsTheRecordedOneAndMentionsNoInternalType() {
        PublicSurface.check(Postbox.class);
    }

    @Test
    void theSurfaceLeavesOutInternalPackagesAndNonPublicMembers() {
        List<String> surface = PublicSurface.of(Postbox.class);
        assertThat(surface).contains("public final class dev.postbox.Postbox",
                "public static dev.postbox.Postbox$Builder dev.postbox.Postbox.builder(javax.sql.DataSource)");
        assertThat(surface).noneMatch(l -> l.contains("dev.postbox.internal.Settings"));
        assertThat(surface).noneMatch(l -> l.contains("Wiring"));
        assertThat(surface).noneMatch(l -> l.startsWith("private") || l.contains(" private "));
    }

    @Test
    void aSignatureThatMentionsAnInternalTypeIsNamed() {
        List<String> lines = List.of(
                "public static dev.postbox.outbox.Outbox dev.postbox.outbox.Outbox.create(dev.postbox.internal.Settings)",
                "public java.util.List<dev.postbox.internal.poll.PollLoop> dev.postbox.relay.Relay.loops()",
                "public static dev.postbox.outbox.OutboxRecord dev.postbox.outbox.OutboxRows.read(java.sql.ResultSet,"
                        + "dev.postbox.jdbc.Dialect) throws java.sql.SQLException");
        assertThat(PublicSurface.mentioningInternals(lines)).containsExactly(lines.get(0), lines.get(1));
    }
}
