package dev.postbox.checks;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * README's Maven snippets work when pasted: the first one imports the BOM with its real coordinates, and every Postbox
 * dependency shown after it is an artifact of the BOM, without a version of its own.
 */
class ReadmeDependenciesTest {

    /** A {@code <dependency>} of a README xml block, and the block's line. */
    record Dependency(int line, String groupId, String artifactId, String version, String type, String scope,
                      boolean managed) {
    }

    @Test
    void theFirstMavenSnippetImportsTheBomAndEveryLaterPostboxDependencyTakesItsVersionFromIt() {
        List<Dependency> postbox = dependencies(Readme.text()).stream()
                .filter(d -> "dev.postbox".equals(d.groupId())).toList();
        assertThat(postbox).as("Postbox dependencies in README.md's xml blocks").hasSizeGreaterThan(1);

        Dependency bom = postbox.get(0);
        List<String> coordinates = Poms.bomCoordinates(Readme.root());
        assertThat(List.of(bom.groupId(), bom.artifactId(), String.valueOf(bom.version())))
                .as("README.md:%d: the first Postbox dependency is the BOM (postbox-bom/pom.xml)", bom.line())
                .isEqualTo(coordinates);
        assertThat(bom).as("README.md:%d: imported in dependencyManagement", bom.line())
                .extracting(Dependency::type, Dependency::scope, Dependency::managed)
                .containsExactly("pom", "import", true);

        List<String> artifacts = Poms.bomArtifacts(Readme.root());
        assertThat(postbox.subList(1, postbox.size())).allSatisfy(d -> {
            assertThat(d.version()).as("README.md:%d: %s has its version from the BOM", d.line(), d.artifactId()).isNull();
            assertThat(artifacts).as("README.md:%d: the BOM manages %s", d.line(), d.artifactId()).contains(d.artifactId());
        });
    }

    private static List<Dependency> dependencies(String markdown) {
        List<String> lines = markdown.lines().toList();
        List<Dependency> found = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).strip().equals("```xml")) {
                int start = i;
                StringBuilder xml = new StringBuilder("<snippet>");
                while (!lines.get(++i).strip().equals("```")) {
                    xml.append(lines.get(i)).append('\n');
                }
                NodeList nodes = parse(xml.append("</snippet>").toString(), start + 1).getElementsByTagName("dependency");
                for (int n = 0; n < nodes.getLength(); n++) {
                    Element d = (Element) nodes.item(n);
                    boolean managed = d.getParentNode().getParentNode() instanceof Element e
                            && e.getTagName().equals("dependencyManagement");
                    found.add(new Dependency(start + 1, Poms.text(d, "groupId"), Poms.text(d, "artifactId"),
                            Poms.text(d, "version"), Poms.text(d, "type"), Poms.text(d, "scope"), managed));
                }
            }
        }
        return found;
    }

    private static Element parse(String xml, int line) {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            return factory.newDocumentBuilder().parse(new InputSource(new StringReader(xml))).getDocumentElement();
        } catch (Exception e) {
            throw new AssertionError("README.md:" + line + ": the xml block does not parse: " + e.getMessage(), e);
        }
    }
}
