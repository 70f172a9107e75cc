package dev.postbox.console;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RoutesTest {

    private final Routes routes = new Routes()
            .get("/api/events/{kind}/{eventNo}", c -> null)
            .post("/api/events/{kind}/{eventNo}/retry", c -> null)
            .get("/", c -> null)
            .get("/assets/*", c -> null);

    @Test
    void segmentsAreSplitBeforeTheyAreDecoded() {
        Routes.Match m = routes.match("GET", "/api/events/outbox/ORDER%2F1%20x%C3%A9+%25");
        assertThat(m.route().template()).isEqualTo("/api/events/{kind}/{eventNo}");
        assertThat(m.params()).containsEntry("kind", "outbox").containsEntry("eventNo", "ORDER/1 xé+%");
        assertThat(routes.match("POST", "/api/events/outbox/A%2Fretry/retry").params()).containsEntry("eventNo", "A/retry");
    }

    @Test
    void unknownPathsAre404AndOtherMethods405() {
        assertThatThrownBy(() -> routes.match("GET", "/api/events/outbox")).isInstanceOfSatisfying(ApiError.class,
                e -> assertThat(e.status).isEqualTo(404));
        assertThatThrownBy(() -> routes.match("GET", "/api/events/outbox/")).isInstanceOfSatisfying(ApiError.class,
                e -> assertThat(e.status).isEqualTo(404));
        assertThatThrownBy(() -> routes.match("DELETE", "/api/events/outbox/x")).isInstanceOfSatisfying(
                Routes.MethodNotAllowed.class, e -> assertThat(e.allowed).containsExactly("GET"));
        assertThatThrownBy(() -> routes.match("GET", "/api/events/outbox/%E0%A4%A")).isInstanceOfSatisfying(
                ApiError.class, e -> assertThat(e.field).isEqualTo("path"));
    }

    @Test
    void theRootAndTheAssetsMatch() {
        assertThat(routes.match("GET", "/").route().template()).isEqualTo("/");
        assertThat(routes.match("GET", "/assets/pages/search.js").params()).containsEntry("*", "pages/search.js");
        assertThatThrownBy(() -> routes.match("GET", "/assets")).isInstanceOf(ApiError.class);
    }
}
