package dev.postbox.examples.plain;

import dev.postbox.message.MessageRecord;
import dev.postbox.outbox.OutboxRecord;
import dev.postbox.outbox.WriteResult;
import dev.postbox.query.Page;

import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** Prints the example's steps as compact lines: one heading per step or query, one line per event. */
final class Report {

    private final PrintStream out;

    Report(PrintStream out) {
        this.out = out;
    }

    void heading(String text) {
        out.println();
        out.println("== " + text);
    }

    void line(String text) {
        out.println("   " + text);
    }

    void result(String table, WriteResult r) {
        line(table + " " + r.eventNo() + " -> " + r.outcome() + (r.inserted() ? " (id " + r.id() + ")" : ""));
    }

    void outbox(String query, Page<OutboxRecord> page) {
        outbox(query, page.items());
    }

    void outbox(String query, List<OutboxRecord> events) {
        print(query, events, e -> "id=%d %-25s %-10s retries=%d/%d %s/%s %s %s/%s trace=%s".formatted(
                e.id(), e.eventNo(), e.status(), e.retryCount(), e.maxRetryCount(), e.aggregateType(),
                e.aggregateId(), e.channel(), e.topic(), e.routingKey(), e.traceId()));
    }

    void messages(String query, Page<MessageRecord> page) {
        print(query, page.items(), e -> "id=%d %-25s %-10s retries=%d/%d %s/%s next_retry=%s reason=%s".formatted(
                e.id(), e.eventNo(), e.status(), e.retryCount(), e.maxRetryCount(), e.bizType(), e.bizId(),
                e.nextRetryTime(), e.failReason()));
    }

    void counts(String query, Map<?, Long> counts) {
        out.println("-- " + query);
        line(counts.toString());
    }

    private <T> void print(String query, List<T> items, Function<T, String> format) {
        out.println("-- " + query + " (" + items.size() + ")");
        items.forEach(item -> line(format.apply(item)));
    }
}
