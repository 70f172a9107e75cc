package dev.postbox.checks;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One {@code ```java} block of a Markdown document, with the snippet marker that precedes it, if any.
 *
 * <p>The convention (README.md's snippets are compiled by {@link ReadmeSnippetsTest}):
 * <ul>
 *   <li>a block with no marker is a whole compilation unit (imports, then types) and compiles as it is;</li>
 *   <li>{@code <!-- snippet: NAME -->} on the last non-blank line before the block puts the block into the scaffold
 *       {@code src/test/resources/readme/NAME.java} of this module, in place of its line {@code // snippet}: the
 *       scaffold holds the imports and declares what the block uses without showing it (a data source, the
 *       application's own methods);</li>
 *   <li>{@code <!-- snippet: skip, REASON -->} is a block that is not Java to compile (pseudo-code); the reason is
 *       required;</li>
 *   <li>{@code <!-- file: PATH[#REGION] -->} is a file of the repository (or a region of one) shown as it is: it is
 *       compiled in its own module and {@link ReadmeAppTest} keeps the two equal, so it counts as skipped here.</li>
 * </ul>
 *
 * @param document  the document's name in messages
 * @param fenceLine the 1-based line of the opening fence
 * @param lines     the block's lines, without the fences
 * @param marker    what the marker says ({@code NAME} or {@code skip, REASON}), {@code null} for none
 */
record JavaBlock(String document, int fenceLine, List<String> lines, String marker) {

    private static final Pattern MARKER = Pattern.compile("<!--\\s*snippet:\\s*(.*?)\\s*-->");
    static final Pattern FILE = Pattern.compile("<!--\\s*file:\\s*(\\S+?)\\s*-->");
    private static final String SKIP = "skip";

    JavaBlock {
        lines = List.copyOf(lines);
    }

    /** The java blocks of {@code markdown}, in document order. */
    static List<JavaBlock> parse(String document, String markdown) {
        List<String> all = markdown.lines().toList();
        List<JavaBlock> blocks = new ArrayList<>();
        String previous = "";
        for (int i = 0; i < all.size(); i++) {
            String line = all.get(i);
            String fence = line.strip();
            if (fence.startsWith("```")) {
                int end = i + 1;
                while (end < all.size() && !all.get(end).strip().equals("```")) {
                    end++;
                }
                if (end == all.size()) {
                    throw new IllegalArgumentException(document + ":" + (i + 1) + ": code block never closed");
                }
                if (fence.equals("```java")) {
                    Matcher m = MARKER.matcher(previous);
                    Matcher f = FILE.matcher(previous);
                    String marker = m.matches() ? m.group(1)
                            : f.matches() ? SKIP + ", " + f.group(1) + " as it is, compiled in its module (ReadmeAppTest)" : null;
                    blocks.add(new JavaBlock(document, i + 1, all.subList(i + 1, end), marker));
                }
                i = end;
                previous = "";
            } else if (!line.isBlank()) {
                previous = fence;
            }
        }
        return blocks;
    }

    /** The 1-based document line of the block's first line. */
    int firstLine() {
        return fenceLine + 1;
    }

    /** Where the block is, as {@code README.md:123}. */
    String location() {
        return document + ":" + fenceLine;
    }

    boolean skipped() {
        return marker != null && (marker.equals(SKIP) || marker.startsWith(SKIP + ","));
    }

    /** The reason a skipped block gives; fails for a skip without one. */
    String skipReason() {
        String reason = marker.substring(SKIP.length()).replaceFirst("^,", "").strip();
        if (reason.isEmpty()) {
            throw new IllegalArgumentException(location() + ": a skipped snippet must say why: <!-- snippet: skip, REASON -->");
        }
        return reason;
    }

    /** The scaffold's name, or {@code null} when the block is a whole compilation unit. */
    String scaffold() {
        return skipped() ? null : marker;
    }

    String text() {
        return String.join("\n", lines) + "\n";
    }

    @Override
    public String toString() {
        return location() + (marker == null ? "" : " (" + Objects.toString(marker) + ")");
    }
}
