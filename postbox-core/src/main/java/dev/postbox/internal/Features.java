package dev.postbox.internal;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How the {@code Postbox} facade creates the features of other packages from its {@link Settings}
 * without a public constructor or factory that takes them: each feature package has a package-private
 * class {@code Wiring} whose static initializer registers a {@link Maker} per public type it makes;
 * {@link #make} loads that class on first use. So {@code Postbox} stays the one way in, and no public
 * signature mentions an internal type. (The JDK reaches its own package-private members the same way.)
 */
public final class Features {

    /** Makes a {@code T} from the settings and one argument of type {@code A} ({@link Void}: none). */
    @FunctionalInterface
    public interface Maker<T, A> {
        T make(Settings settings, A argument);
    }

    private record Entry(Class<?> argument, Maker<?, ?> maker) {
    }

    private static final Map<Class<?>, Entry> MAKERS = new ConcurrentHashMap<>();

    private Features() {
    }

    /** Registers how {@code type} is made; called from the static initializer of its package's {@code Wiring}. */
    public static <T, A> void provide(Class<T> type, Class<A> argument, Maker<T, A> maker) {
        MAKERS.put(type, new Entry(argument, maker));
    }

    /** Makes a {@code type} (from the package of {@code type}, whose {@code Wiring} registers it). */
    @SuppressWarnings("unchecked")
    public static <T, A> T make(Class<T> type, Class<A> argument, Settings settings, A value) {
        Entry e = MAKERS.get(type);
        if (e == null) {
            String wiring = type.getPackageName() + ".Wiring";
            try {
                Class.forName(wiring, true, type.getClassLoader());
            } catch (ClassNotFoundException ex) {
                throw new IllegalStateException("no " + wiring + " registers " + type.getName(), ex);
            }
            e = MAKERS.get(type);
            if (e == null) {
                throw new IllegalStateException(wiring + " does not register " + type.getName());
            }
        }
        if (e.argument() != argument) {
            throw new IllegalStateException(type.getName() + " is made from a " + e.argument().getName()
                    + ", not a " + argument.getName());
        }
        return type.cast(((Maker<T, A>) e.maker()).make(settings, value));
    }

    /** {@link #make} for a type made from the settings alone. */
    public static <T> T make(Class<T> type, Settings settings) {
        return make(type, Void.class, settings, null);
    }
}
