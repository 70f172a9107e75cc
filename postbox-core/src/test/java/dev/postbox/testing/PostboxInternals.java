package dev.postbox.testing;

import dev.postbox.Postbox;
import dev.postbox.internal.Settings;

import java.lang.reflect.Field;

/** For tests that drive package-private parts of the core directly: the settings a Postbox was built with. */
public final class PostboxInternals {

    private PostboxInternals() {
    }

    /** The frozen settings of {@code postbox} (no public accessor: {@code Postbox} is the one way in). */
    public static Settings settings(Postbox postbox) {
        try {
            Field f = Postbox.class.getDeclaredField("settings");
            f.setAccessible(true);
            return (Settings) f.get(postbox);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("Postbox has no settings field", e);
        }
    }
}
