package dev.postbox.console;

import dev.postbox.compensation.CompensationRecord;
import dev.postbox.operations.ActionResult;
import dev.postbox.operations.AuditChange;
import dev.postbox.operations.AuditEntry;
import dev.postbox.operations.BlockedAggregate;
import dev.postbox.operations.BulkPreview;
import dev.postbox.operations.BulkRequest;
import dev.postbox.operations.BulkResult;
import dev.postbox.operations.EventDetail;
import dev.postbox.operations.EventSummary;
import dev.postbox.operations.Overview;
import dev.postbox.operations.RevealedPayload;
import dev.postbox.operations.SearchPage;
import dev.postbox.operations.TimelineEntry;
import dev.postbox.query.Backlog;
import dev.postbox.query.Page;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hand-written OpenAPI document describes what the API really writes: each schema of a record has exactly
 * the record's components as properties (plus what {@link Views} adds), and every reference resolves. That the
 * document's paths are exactly the served routes is checked over HTTP in {@code ConsoleApiContract}.
 */
class OpenApiDocumentTest {

    @SuppressWarnings("unchecked")
    static Map<String, Object> document() {
        return Json.parseObject(new String(Endpoints.resource(Endpoints.OPENAPI), StandardCharsets.UTF_8));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> schemas() {
        return (Map<String, Object>) ((Map<String, Object>) document().get("components")).get("schemas");
    }

    @Test
    void isAnOpenApi31DocumentWhoseReferencesAllResolve() {
        Map<String, Object> doc = document();
        assertThat(doc.get("openapi")).isEqualTo("3.1.0");
        String text = new String(Endpoints.resource(Endpoints.OPENAPI), StandardCharsets.UTF_8);
        Matcher m = Pattern.compile("\"\\$ref\": \"#/components/schemas/([A-Za-z]+)\"").matcher(text);
        List<String> refs = new ArrayList<>();
        while (m.find()) {
            refs.add(m.group(1));
        }
        assertThat(refs).isNotEmpty();
        assertThat(schemas().keySet()).containsAll(refs);
    }

    @Test
    @SuppressWarnings("unchecked")
    void recordSchemasListExactlyTheRecordsComponents() {
        Map<String, Class<? extends Record>> records = new LinkedHashMap<>();
        records.put("Overview", Overview.class);
        records.put("Minute", Overview.Minute.class);
        records.put("Instance", Overview.Instance.class);
        records.put("Problem", Overview.Problem.class);
        records.put("EventSummary", EventSummary.class);
        records.put("SearchPage", SearchPage.class);
        records.put("TimelineEntry", TimelineEntry.class);
        records.put("Consumption", EventDetail.Consumption.class);
        records.put("CompensationRecord", CompensationRecord.class);
        records.put("EventDetail", EventDetail.class);
        records.put("RevealedPayload", RevealedPayload.class);
        records.put("AuditChange", AuditChange.class);
        records.put("ActionResult", ActionResult.class);
        records.put("BlockedAggregate", BlockedAggregate.class);
        records.put("BlockedPage", castPage());
        records.put("BulkRequest", BulkRequest.class);
        records.put("BulkPreview", BulkPreview.class);
        records.put("BulkResult", BulkResult.class);
        records.put("AuditEntry", AuditEntry.class);
        records.put("AuditPage", castPage());
        records.put("AuditChangePage", castPage());
        Map<String, Object> schemas = schemas();
        records.forEach((schema, type) -> {
            Map<String, Object> s = (Map<String, Object>) schemas.get(schema);
            assertThat(s).as(schema).isNotNull();
            assertThat(((Map<String, Object>) s.get("properties")).keySet()).as(schema)
                    .containsExactlyElementsOf(components(type));
        });
        List<String> backlog = new ArrayList<>(components(Backlog.class));
        backlog.addAll(List.of("unfinished", "oldestUnfinishedAgeMillis"));
        assertThat(((Map<String, Object>) ((Map<String, Object>) schemas.get("Backlog")).get("properties")).keySet())
                .containsExactlyElementsOf(backlog);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Class<? extends Record> castPage() {
        return (Class) Page.class;
    }

    private static List<String> components(Class<? extends Record> type) {
        return Arrays.stream(type.getRecordComponents()).map(c -> c.getName()).toList();
    }
}
