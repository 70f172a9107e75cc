package dev.postbox.checks;

import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What the build's POMs say: the root's modules, a module's artifactId and marks, the BOM's artifacts. */
final class Poms {

    /** A module of the root POM. */
    record Module(Path dir, String artifactId, String packaging, boolean deployed) {
    }

    private Poms() {
    }

    /** The modules of the root POM, by artifactId. */
    static Map<String, Module> modules(Path root) {
        Map<String, Module> modules = new LinkedHashMap<>();
        for (String dir : texts(child(read(root.resolve("pom.xml")), "modules"), "module")) {
            Path moduleDir = root.resolve(dir).normalize();
            Element pom = read(moduleDir.resolve("pom.xml"));
            Element properties = child(pom, "properties");
            boolean deployed = properties == null || !"true".equals(text(properties, "maven.deploy.skip"));
            String packaging = text(pom, "packaging");
            modules.put(text(pom, "artifactId"), new Module(moduleDir, text(pom, "artifactId"),
                    packaging == null ? "jar" : packaging, deployed));
        }
        return modules;
    }

    /** The dev.postbox artifacts the BOM manages. */
    static List<String> bomArtifacts(Path root) {
        Element managed = child(child(read(root.resolve("postbox-bom/pom.xml")), "dependencyManagement"), "dependencies");
        List<String> artifacts = new ArrayList<>();
        NodeList dependencies = managed.getElementsByTagName("dependency");
        for (int i = 0; i < dependencies.getLength(); i++) {
            Element d = (Element) dependencies.item(i);
            if ("dev.postbox".equals(text(d, "groupId"))) {
                artifacts.add(text(d, "artifactId"));
            }
        }
        return artifacts;
    }

    /** The BOM's own coordinates: groupId, artifactId, version (its revision). */
    static List<String> bomCoordinates(Path root) {
        Element bom = read(root.resolve("postbox-bom/pom.xml"));
        String version = text(bom, "version");
        if ("${revision}".equals(version)) {
            version = text(child(bom, "properties"), "revision");
        }
        return List.of(text(bom, "groupId"), text(bom, "artifactId"), version);
    }

    static Element read(Path pom) {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            Document doc = factory.newDocumentBuilder().parse(pom.toFile());
            return doc.getDocumentElement();
        } catch (Exception e) {
            throw new IllegalStateException("cannot read " + pom + ": " + e.getMessage(), e);
        }
    }

    /** The direct child element {@code name}, or null. */
    static Element child(Element parent, String name) {
        if (parent == null) {
            return null;
        }
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                return e;
            }
        }
        return null;
    }

    /** The text of the direct child element {@code name}, trimmed, or null. */
    static String text(Element parent, String name) {
        Element e = child(parent, name);
        return e == null ? null : e.getTextContent().strip();
    }

    private static List<String> texts(Element parent, String name) {
        List<String> texts = new ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                texts.add(e.getTextContent().strip());
            }
        }
        return texts;
    }
}
