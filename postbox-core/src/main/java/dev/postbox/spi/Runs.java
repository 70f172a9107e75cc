package dev.postbox.spi;

import dev.postbox.outbox.OutboxRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Helps a publisher with an {@linkplain Publisher#orderLane order lane} keep the promise that nothing behind
 * a failure of an aggregate's run is reported published: for targets that answer every pipelined message
 * on its own (RabbitMQ confirms, JetStream acks, Kafka's per-record callbacks), where an event may be
 * stored although an earlier one of its aggregate in the same call was not. Stateless and thread-safe.
 */
public final class Runs {

    private static final Logger log = LoggerFactory.getLogger(Runs.class);

    private Runs() {
    }

    /**
     * The outcomes of one call with the failure rule applied per aggregate: an event's outcome is its own
     * while every earlier event of its aggregate (type and id) in {@code records} was published, and
     * otherwise {@code retry("not published: ...")}, which completes only once the earlier outcome and its
     * own are known. When such an event had been published (it may have overtaken the failed one on the
     * target) a WARN names both: the relay sends it again after the failed one, and the consumer's inbox
     * absorbs the copy. {@code stages} are the publisher's outcomes, one per record, in order.
     *
     * @throws IllegalArgumentException when the lists differ in size
     */
    public static List<CompletionStage<PublishResult>> stopAfterFailure(List<OutboxRecord> records,
                                                                        List<CompletionStage<PublishResult>> stages) {
        if (records.size() != stages.size()) {
            throw new IllegalArgumentException("records and stages differ in size: " + records.size() + " and "
                    + stages.size());
        }
        List<CompletionStage<PublishResult>> out = new ArrayList<>(stages.size());
        Map<List<String>, Link> last = new HashMap<>();
        for (int i = 0; i < records.size(); i++) {
            OutboxRecord r = records.get(i);
            CompletableFuture<PublishResult> own = Objects.requireNonNull(stages.get(i), "stage").toCompletableFuture();
            List<String> aggregate = Arrays.asList(r.aggregateType(), r.aggregateId());
            Link previous = last.get(aggregate);
            CompletableFuture<PublishResult> chained = previous == null ? own : chain(previous, r, own);
            last.put(aggregate, new Link(r.eventNo(), chained));
            out.add(chained);
        }
        return out;
    }

    /** The last outcome of an aggregate so far, and its event. */
    private record Link(String eventNo, CompletableFuture<PublishResult> outcome) {
    }

    private static CompletableFuture<PublishResult> chain(Link previous, OutboxRecord r, CompletableFuture<PublishResult> own) {
        return previous.outcome().handle((p, e) -> e == null && p != null && p.kind() == PublishResult.Kind.PUBLISHED)
                .thenCompose(earlierPublished -> earlierPublished ? own : own.handle((mine, error) -> {
                    if (error == null && mine != null && mine.kind() == PublishResult.Kind.PUBLISHED) {
                        log.warn("event {} was stored although event {} of its aggregate, sent before it in the same"
                                + " batch, was not: it may have overtaken it; it is sent again after it", r.eventNo(),
                                previous.eventNo());
                    }
                    return PublishResult.retry("not published: event " + previous.eventNo()
                            + " of its aggregate, before it in the same batch, was not");
                }));
    }
}
