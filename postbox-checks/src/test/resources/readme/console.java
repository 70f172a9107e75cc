import dev.postbox.Postbox;
import dev.postbox.console.BasicAuthenticator;
import dev.postbox.console.ConsoleApi;
import dev.postbox.console.ConsoleServer;
import dev.postbox.console.ConsoleServlet;
import dev.postbox.operations.Permission;
import dev.postbox.operations.Role;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletRegistration;

/**
 * The README's postbox-console snippets are the body of snippet(); what they use without showing it: the
 * password hashes from the application's configuration, the servlet context, the console's API.
 */
abstract class Snippet {

    Postbox postbox;
    String anaHash;
    String leadHash;
    String viewerHash;
    ServletContext servletContext;
    ConsoleApi api;

    void snippet() throws Exception {
        // snippet
    }
}
