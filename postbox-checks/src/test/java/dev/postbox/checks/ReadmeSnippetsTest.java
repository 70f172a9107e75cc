package dev.postbox.checks;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

/**
 * Every {@code ```java} block of README.md compiles against the published modules (the convention is in
 * {@link JavaBlock}): a README whose snippet no longer matches the API fails the build, naming the README's line and
 * the compiler's message.
 */
class ReadmeSnippetsTest {

    @TempDir
    Path classes;

    @Test
    void everyJavaBlockOfTheReadmeCompiles() {
        String readme = Readme.text();
        List<JavaBlock> blocks = JavaBlock.parse("README.md", readme);
        long fences = readme.lines().filter(l -> l.strip().startsWith("```java")).count();
        List<JavaBlock> skipped = blocks.stream().filter(JavaBlock::skipped).toList();
        skipped.forEach(JavaBlock::skipReason);                       // each says why, or this fails
        List<JavaBlock> compiled = blocks.stream().filter(b -> !b.skipped()).toList();

        assertThat(fences).as("java blocks in README.md").isGreaterThan(10);
        assertThat((long) compiled.size()).as("compiled blocks: every java fence except the explicitly skipped ones")
                .isGreaterThanOrEqualTo(fences - skipped.size());

        SnippetCompiler.Result result = new SnippetCompiler(classes).compile(blocks);
        if (!result.errors().isEmpty()) {
            fail(result.errors().size() + " compiler error(s) in README.md's java blocks:\n\n"
                    + String.join("\n\n", result.errors()));
        }
    }

    @Test
    void aBrokenSnippetIsReportedAtItsDocumentLineWithTheCompilersMessage() {
        String doc = """
                # A document
                <!-- snippet: core -->
                ```java
                Postbox postbox = Postbox.builder(dataSource)
                        .sourc("order-service")
                        .build();
                ```
                """;
        List<String> errors = new SnippetCompiler(classes).compile(JavaBlock.parse("broken.md", doc)).errors();

        assertThat(errors).singleElement().asString()
                .startsWith("broken.md:5: cannot find symbol")
                .contains("sourc")
                .contains("> .sourc(\"order-service\")");
    }

    @Test
    void aFragmentWithoutMarkerIsCompiledAsAWholeUnitAndFails() {
        String doc = """
                ```java
                postbox.outbox();
                ```
                """;
        List<String> errors = new SnippetCompiler(classes).compile(JavaBlock.parse("fragment.md", doc)).errors();

        assertThat(errors).isNotEmpty().allMatch(e -> e.startsWith("fragment.md:2: "));
    }

    @Test
    void aWholeUnitWithoutMarkerCompilesAsItIsAndASkippedBlockIsNotCompiled() {
        String doc = """
                ```java
                import dev.postbox.Postbox;

                public class Holder {
                    Postbox postbox;
                }
                ```

                <!-- snippet: skip, pseudo-code for the test -->
                ```java
                claim -> publish -> record
                ```
                """;
        List<JavaBlock> blocks = JavaBlock.parse("doc.md", doc);

        assertThat(blocks).extracting(JavaBlock::skipped).containsExactly(false, true);
        assertThat(blocks.get(1).skipReason()).isEqualTo("pseudo-code for the test");
        assertThat(new SnippetCompiler(classes).compile(blocks).errors()).isEmpty();
    }

    @Test
    void aSkipMustSayWhyAndAScaffoldMustExist() {
        String doc = """
                <!-- snippet: skip -->
                ```java
                anything
                ```
                <!-- snippet: no-such-scaffold -->
                ```java
                int a = 1;
                ```
                """;
        List<JavaBlock> blocks = JavaBlock.parse("doc.md", doc);

        assertThatThrownBy(() -> blocks.get(0).skipReason()).hasMessageContaining("doc.md:2: a skipped snippet must say why");
        assertThatThrownBy(() -> new SnippetCompiler(classes).compile(List.of(blocks.get(1))))
                .hasMessageContaining("doc.md:6: no scaffold src/test/resources/readme/no-such-scaffold.java");
    }
}
