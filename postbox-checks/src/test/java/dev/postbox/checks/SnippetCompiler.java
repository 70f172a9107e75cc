package dev.postbox.checks;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Compiles {@link JavaBlock}s with the JDK's compiler against the test class path, all in one compiler run, and
 * reports each error at its document line: {@code README.md:311: cannot find symbol ...} followed by the line.
 * Each block becomes its own package ({@code readme.l<fence line>}), so blocks may declare the same names.
 */
final class SnippetCompiler {

    private static final Pattern PUBLIC_TYPE =
            Pattern.compile("^public\\s+(?:(?:final|abstract|sealed)\\s+)*(?:class|interface|record|enum)\\s+(\\w+)");
    private static final String PLACEHOLDER = "// snippet";

    /** The outcome: the errors, each at its document line, and the classes written to the output directory. */
    record Result(List<String> errors, Path classes) {
    }

    private final Path output;

    /** Writes class files under {@code output}. */
    SnippetCompiler(Path output) {
        this.output = output;
    }

    /** The package a block's source is compiled into. */
    static String packageOf(JavaBlock block) {
        return "readme.l" + block.fenceLine();
    }

    /** Compiles every block that is not skipped; the errors are empty when all compiled. */
    Result compile(List<JavaBlock> blocks) {
        List<Source> sources = new ArrayList<>();
        for (JavaBlock block : blocks) {
            if (!block.skipped()) {
                sources.add(Source.of(block));
            }
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        if (javac == null) {
            throw new IllegalStateException("no system Java compiler: the tests must run on a JDK, not a JRE");
        }
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        List<String> errors = new ArrayList<>();
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
            List<String> options = List.of("--release", "17", "-proc:none", "-implicit:none", "-encoding", "UTF-8",
                    "-classpath", TestClassPath.get(), "-d", output.toString());
            boolean ok = javac.getTask(null, files, diagnostics, options, null, sources).call();
            for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
                if (d.getKind() == Diagnostic.Kind.ERROR) {
                    errors.add(d.getSource() instanceof Source s ? s.describe(d) : d.toString());
                }
            }
            if (!ok && errors.isEmpty()) {
                errors.add("the compiler failed without an error diagnostic");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Result(List.copyOf(errors), output);
    }

    /** A block as a compilation unit: the block alone, or the block inside its scaffold. */
    private static final class Source extends SimpleJavaFileObject {

        private final JavaBlock block;
        private final String code;
        /** 0-based line of the generated source where the block's first line is. */
        private final int start;
        private final String scaffold;

        private Source(JavaBlock block, String fileName, String code, int start, String scaffold) {
            super(URI.create("string:///" + packageOf(block).replace('.', '/') + "/" + fileName), Kind.SOURCE);
            this.block = block;
            this.code = code;
            this.start = start;
            this.scaffold = scaffold;
        }

        static Source of(JavaBlock block) {
            String header = "package " + packageOf(block) + "; ";    // on the first line: line numbers stay
            if (block.scaffold() == null) {
                return new Source(block, publicType(block.lines()) + ".java", header + block.text(), 0, null);
            }
            List<String> lines = scaffold(block);
            int at = -1;
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).strip().equals(PLACEHOLDER)) {
                    at = i;
                }
            }
            if (at < 0) {
                throw new IllegalStateException("scaffold readme/" + block.scaffold() + ".java has no line '" + PLACEHOLDER + "'");
            }
            List<String> code = new ArrayList<>(lines.subList(0, at));
            code.addAll(block.lines());
            code.addAll(lines.subList(at + 1, lines.size()));
            return new Source(block, publicType(lines) + ".java", header + String.join("\n", code) + "\n", at,
                    block.scaffold());
        }

        private static List<String> scaffold(JavaBlock block) {
            String name = "readme/" + block.scaffold() + ".java";
            try (InputStream in = SnippetCompiler.class.getClassLoader().getResourceAsStream(name)) {
                if (in == null) {
                    throw new IllegalArgumentException(block.location() + ": no scaffold src/test/resources/" + name
                            + " for <!-- snippet: " + block.marker() + " -->");
                }
                return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private static String publicType(List<String> lines) {
            for (String line : lines) {
                Matcher m = PUBLIC_TYPE.matcher(line);
                if (m.find()) {
                    return m.group(1);
                }
            }
            return "Snippet";
        }

        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return code;
        }

        /** {@code README.md:311: <message>} and the line, or the scaffold's line for an error outside the block. */
        String describe(Diagnostic<? extends JavaFileObject> d) {
            int line = (int) d.getLineNumber();                     // 1-based in the generated source
            String message = d.getMessage(Locale.ROOT);
            int inBlock = line - 1 - start;
            if (line > 0 && inBlock >= 0 && inBlock < block.lines().size()) {
                return block.document() + ":" + (block.firstLine() + inBlock) + ": " + message
                        + "\n    > " + block.lines().get(inBlock).strip();
            }
            if (scaffold == null || line <= 0) {
                return block.location() + ": " + message;
            }
            int scaffoldLine = inBlock < 0 ? line : line - block.lines().size() + 1;
            return block.location() + ": in its scaffold readme/" + scaffold + ".java:" + scaffoldLine + ": " + message;
        }
    }
}
