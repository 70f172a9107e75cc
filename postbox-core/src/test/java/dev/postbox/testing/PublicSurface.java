package dev.postbox.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Member;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The public surface of one module, read by reflection from its compiled main classes: every public or
 * protected type outside the {@code *.internal*} packages, and every public or protected constructor,
 * method and field they declare, one sorted line each ({@code toGenericString()}, so generics and
 * {@code throws} are part of it). A module's {@code PublicSurfaceTest} calls {@link #check}: it compares the
 * lines to the recorded baseline {@code src/test/resources/api/public-surface.txt} and fails showing what was
 * added and removed, so that a change of the API is a decision in review, not an accident. With
 * {@value #RECORD} set to {@code true} it writes the baseline instead. There is no released artifact to
 * compare against (japicmp), so the baseline is the contract.
 */
public final class PublicSurface {

    /** System property that makes {@link #check} write the baseline instead of comparing with it. */
    public static final String RECORD = "postbox.api.record";

    private static final Pattern INTERNAL_PACKAGE = Pattern.compile("(^|\\.)internal(\\.|$)");
    private static final Pattern INTERNAL_TYPE = Pattern.compile("\\bdev\\.postbox(?:\\.\\w+)*?\\.internal\\.[\\w.$]+");

    private PublicSurface() {
    }

    /**
     * Compares the surface of the module whose main classes hold {@code anchor} with its baseline (or
     * records it), and fails when a public signature mentions a type of an {@code internal} package.
     */
    public static void check(Class<?> anchor) {
        List<String> surface = of(anchor);
        List<String> leaks = mentioningInternals(surface);
        Path baseDir = Path.of(System.getProperty("basedir", "."));
        Path baseline = baseDir.resolve("src/test/resources/api/public-surface.txt");
        Path shown = Path.of("src/test/resources/api/public-surface.txt");
        String module = baseDir.toAbsolutePath().normalize().getFileName().toString();
        if (Boolean.getBoolean(RECORD)) {
            write(baseline, surface);
        }
        if (!leaks.isEmpty()) {
            throw new AssertionError("public signatures of " + module + " mention internal types (an application cannot"
                    + " use them, and they would freeze the internals):\n  " + String.join("\n  ", leaks));
        }
        String rerecord = "mvn -B -pl " + module + " -am test -Dtest=PublicSurfaceTest -Dsurefire.failIfNoSpecifiedTests=false"
                + " -D" + RECORD + "=true";
        if (!Files.exists(baseline)) {
            throw new AssertionError("no recorded public surface " + baseline + "; record it with: " + rerecord);
        }
        Set<String> recorded = new TreeSet<>(read(baseline));
        Set<String> now = new TreeSet<>(surface);
        List<String> diff = new ArrayList<>();
        now.stream().filter(l -> !recorded.contains(l)).forEach(l -> diff.add("+ " + l));
        recorded.stream().filter(l -> !now.contains(l)).forEach(l -> diff.add("- " + l));
        if (!diff.isEmpty()) {
            long added = diff.stream().filter(l -> l.startsWith("+")).count();
            throw new AssertionError("the public surface of " + module + " differs from " + shown + " (" + added
                    + " added, " + (diff.size() - added) + " removed). If the change is intended, re-record it with\n  "
                    + rerecord + "\nand review the file's diff:\n" + String.join("\n", diff));
        }
    }

    /** The lines of {@code surface} that mention a type of an {@code internal} package of Postbox. */
    public static List<String> mentioningInternals(List<String> surface) {
        return surface.stream().filter(l -> INTERNAL_TYPE.matcher(l).find()).toList();
    }

    /** The sorted surface lines of the module whose main classes hold {@code anchor}. */
    public static List<String> of(Class<?> anchor) {
        Path classes = classesDir(anchor);
        Set<String> lines = new TreeSet<>();
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path file : files.filter(p -> p.toString().endsWith(".class")).sorted().toList()) {
                String name = classes.relativize(file).toString().replace(file.getFileSystem().getSeparator(), ".");
                name = name.substring(0, name.length() - ".class".length());
                if (name.endsWith("module-info") || name.endsWith("package-info")) {
                    continue;
                }
                Class<?> type = Class.forName(name, false, anchor.getClassLoader());
                if (visible(type) && !INTERNAL_PACKAGE.matcher(type.getPackageName()).find()) {
                    add(type, lines);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("a compiled class does not load: " + e.getMessage(), e);
        }
        return List.copyOf(lines);
    }

    private static Path classesDir(Class<?> anchor) {
        try {
            Path p = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
            if (!Files.isDirectory(p)) {
                throw new IllegalStateException(anchor.getName() + " comes from " + p
                        + ", not a classes directory: run the test from its own module");
            }
            return p;
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Public or protected, and so is every class it is nested in; not anonymous, local or synthetic. */
    private static boolean visible(Class<?> type) {
        for (Class<?> t = type; t != null; t = t.getDeclaringClass()) {
            if (t.isAnonymousClass() || t.isLocalClass() || t.isSynthetic() || !exposed(t.getModifiers())) {
                return false;
            }
        }
        return true;
    }

    private static boolean exposed(int modifiers) {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    private static void add(Class<?> type, Set<String> lines) {
        StringBuilder header = new StringBuilder(type.toGenericString());
        Type superclass = type.getGenericSuperclass();
        if (superclass != null && superclass != Object.class) {
            header.append(" extends ").append(superclass.getTypeName());
        }
        Type[] interfaces = type.getGenericInterfaces();
        if (interfaces.length > 0) {
            header.append(type.isInterface() ? " extends " : " implements ")
                    .append(Arrays.stream(interfaces).map(Type::getTypeName).collect(Collectors.joining(", ")));
        }
        lines.add(header.toString());
        Stream.of(type.getDeclaredConstructors(), type.getDeclaredMethods(), type.getDeclaredFields())
                .flatMap(Arrays::stream)
                .filter(m -> exposed(m.getModifiers()) && !m.isSynthetic())
                .filter(m -> !(m instanceof java.lang.reflect.Method method && method.isBridge()))
                .map(PublicSurface::signature)
                .forEach(lines::add);
    }

    private static String signature(Member m) {
        if (m instanceof java.lang.reflect.Executable e) {
            // synchronized (and native) say how a method is implemented, not what callers may rely on
            return e.toGenericString().replace("synchronized ", "").replace("native ", "");
        }
        return ((java.lang.reflect.Field) m).toGenericString();
    }

    private static List<String> read(Path baseline) {
        try {
            return Files.readAllLines(baseline).stream().filter(l -> !l.isBlank()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void write(Path baseline, List<String> surface) {
        try {
            Files.createDirectories(baseline.getParent());
            Files.write(baseline, surface);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
