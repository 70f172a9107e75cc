package dev.postbox.spring.autoconfigure.listener;

import dev.postbox.http.WebhookReceiver;
import dev.postbox.http.WebhookResponse;
import dev.postbox.http.WebhookVerifier;
import dev.postbox.inbox.EnvelopeConsumer;
import dev.postbox.spring.PostboxListener.Transport;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.core.env.Environment;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * HTTP webhooks: the starter receives {@code POST} requests on each group's path, checks their
 * {@code Postbox-Signature} with {@code postbox.http.secret} and hands them to a {@link WebhookReceiver}: 200
 * once the work committed (or for a duplicate), 401 for a bad signature, 400 for a request that is not a Postbox
 * delivery, 500 when the method failed and 503 when the database did (the sender retries both). The paths are
 * served by one servlet filter in front of the application's servlets (a Spring MVC application's
 * {@code DispatcherServlet}; the servlet container runs filters only for a request some servlet is mapped to), so a
 * listener bean created after the web server started is still reachable; a path whose listener has not started yet
 * (or has stopped) answers 503.
 */
final class HttpListenerTransport implements ListenerTransport, Filter {

    private final Environment env;
    private final Map<String, WebhookReceiver> byPath = new ConcurrentHashMap<>();
    private final Map<String, Boolean> declared = new ConcurrentHashMap<>();

    HttpListenerTransport(Environment env) {
        this.env = env;
    }

    @Override
    public Transport transport() {
        return Transport.HTTP;
    }

    private String secret() {
        String s = env.getProperty("postbox.http.secret");
        return s == null || s.isBlank() ? null : s;
    }

    @Override
    public void check(ListenerGroup group) {
        String path = group.path();
        if (path.isBlank() || !path.startsWith("/") || path.contains("*") || path.contains("?")) {
            throw new IllegalStateException("@PostboxListener " + group.describe() + " needs a path: an absolute path"
                    + " without wildcards, e.g. path = \"/webhooks/orders\" (was '" + path + "')");
        }
        if (secret() == null) {
            throw new IllegalStateException("@PostboxListener " + group.describe() + " receives webhooks signed with"
                    + " postbox.http.secret: set it to the sender's secret");
        }
        if (declared.putIfAbsent(path, Boolean.TRUE) != null) {
            throw new IllegalStateException("@PostboxListener " + group.describe() + ": path " + path + " is taken by"
                    + " another consumer's listener");
        }
    }

    @Override
    public AutoCloseable start(ListenerGroup group, EnvelopeConsumer consumer) {
        WebhookReceiver receiver = WebhookReceiver.builder(consumer).verifier(WebhookVerifier.of(secret())).build();
        byPath.put(group.path(), receiver);
        return () -> byPath.remove(group.path(), receiver);
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain) throws IOException, ServletException {
        if (!(request instanceof HttpServletRequest req) || !(response instanceof HttpServletResponse res)) {
            chain.doFilter(request, response);
            return;
        }
        String path = req.getRequestURI().substring(req.getContextPath().length());
        if (!declared.containsKey(path)) {
            chain.doFilter(request, response);
            return;
        }
        WebhookReceiver receiver = byPath.get(path);
        WebhookResponse answer;
        if (receiver == null) {
            answer = new WebhookResponse(503, "the consumer of " + path + " is not running");
        } else {
            Map<String, List<String>> headers = new LinkedHashMap<>();
            for (String name : Collections.list(req.getHeaderNames())) {
                headers.put(name, Collections.list(req.getHeaders(name)));
            }
            byte[] body = req.getInputStream().readAllBytes();
            answer = receiver.receive(req.getMethod(), headers, body);
        }
        res.setStatus(answer.status());
        res.setContentType("text/plain;charset=UTF-8");
        byte[] message = (answer.message() == null ? "" : answer.message()).getBytes(StandardCharsets.UTF_8);
        res.setContentLength(message.length);
        res.getOutputStream().write(message);
    }
}
