package dev.postbox.console;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The console as a Jakarta servlet (Servlet 6.0 and 6.1: Spring Boot 3.5 and 4.0, Tomcat 10.1/11, Jetty 12),
 * mapped at a path with a wildcard, e.g. {@code /postbox/*}:
 * <pre>
 *   ServletRegistration.Dynamic r = servletContext.addServlet("postbox-console", new ConsoleServlet(api));
 *   r.addMapping("/postbox/*");
 * </pre>
 * It hands each request to {@link ConsoleApi#handle(ConsoleRequest)} with the path below the mapping still
 * percent-encoded (from {@link HttpServletRequest#getRequestURI()}), so an event number holding an encoded
 * {@code /} stays one segment; note that Servlet 6 containers reject {@code %2F} in a path by default (Tomcat's
 * {@code encodedSolidusHandling}, Jetty's {@code UriCompliance}) until configured to pass it through. A
 * request for the mapping itself ({@code /postbox}) is redirected to {@code /postbox/}, where the UI's relative
 * URLs work. A console without authentication answers only requests from loopback addresses.
 */
public class ConsoleServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    private final transient ConsoleApi api;

    public ConsoleServlet(ConsoleApi api) {
        this.api = Objects.requireNonNull(api, "api");
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String below = pathBelowMapping(req);
        if (below.isEmpty()) {
            String query = req.getQueryString();
            resp.setStatus(308);
            resp.setHeader("Location", req.getRequestURI() + "/" + (query == null ? "" : "?" + query));
            return;
        }
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (String name : Collections.list(req.getHeaderNames())) {
            headers.put(name, new ArrayList<>(Collections.list(req.getHeaders(name))));
        }
        ConsoleRequest request = new ConsoleRequest(req.getMethod(), below,
                ConsoleRequest.parseQuery(req.getQueryString()), headers, api.readBody(req.getInputStream()),
                req.getRemoteAddr());
        ConsoleResponse response = api.handle(request);
        resp.setStatus(response.status());
        response.headers().forEach(resp::setHeader);
        byte[] body = response.body();
        resp.setContentLength(body.length);
        if (body.length > 0) {
            resp.getOutputStream().write(body);
        }
    }

    /**
     * The raw (encoded) path after the context path and the servlet path: the request URI minus as many
     * segments as the decoded servlet path has, so encoded characters below the mapping are kept as sent.
     */
    static String pathBelowMapping(HttpServletRequest req) {
        String uri = req.getRequestURI();
        String context = req.getContextPath() == null ? "" : req.getContextPath();
        String rest = uri.startsWith(context) ? uri.substring(context.length()) : uri;
        int semicolon = rest.indexOf(';'); // path parameters (;jsessionid=...) are not part of the console's path
        if (semicolon >= 0) {
            rest = rest.substring(0, semicolon);
        }
        String servletPath = req.getServletPath() == null ? "" : req.getServletPath();
        int skip = Routes.split(servletPath).size();
        int at = 0;
        for (int i = 0; i < skip; i++) {
            int next = rest.indexOf('/', at + 1);
            at = next < 0 ? rest.length() : next;
        }
        return rest.substring(at);
    }
}
