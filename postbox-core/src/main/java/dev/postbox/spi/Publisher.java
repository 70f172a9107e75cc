package dev.postbox.spi;

import dev.postbox.outbox.OutboxRecord;

import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * Sends claimed outbox events to a target (a broker, an HTTP endpoint, an in-process bus). The relay
 * calls it outside any transaction with the whole batch, and expects it to put every event in flight
 * at once, using the target's own batching, and to report each event's outcome separately so that a
 * partial failure retries only the failed events.
 *
 * <p>Implementations must be thread-safe and must not block the calling thread for long; the relay puts
 * its own timeout on every stage (one send timeout per call). A stage that completes exceptionally is
 * classified by the relay's {@link ErrorClassifier}.
 *
 * <h2>Several events of one aggregate in one call</h2>
 * In the default ordered mode the relay must never let an event of an aggregate overtake an earlier one.
 * How many events of one aggregate it puts in one call depends on {@link #orderLane(OutboxRecord)}:
 * <ul>
 *   <li><b>No lane</b> ({@code null}, the default, which every publisher written before this method keeps):
 *       a call holds at most one event per aggregate. The relay hands a claimed run of an aggregate over
 *       in <em>waves</em>, the n-th event of every aggregate in one call started only once the call with
 *       the (n-1)-th events is done, and only for the aggregates whose earlier event was published.
 *       Correct for any publisher, but one round trip to the target per event of the longest run.</li>
 *   <li><b>A lane</b>: consecutive events of one aggregate whose lanes are {@linkplain Object#equals equal}
 *       may be in one call, in their order (a call keeps the batch's order). An event whose lane differs
 *       from its aggregate's previous event (or is null) starts a new wave, as above.</li>
 * </ul>
 * A publisher that returns a lane promises, for the events of one aggregate in one call (the <em>run</em>):
 * <ol>
 *   <li><b>Order on the wire.</b> They are put on the wire in call order on one producer, channel or
 *       connection, such that the target stores (or delivers) them in that order; or the publisher itself
 *       sends an event only after the earlier one's acknowledgement (as one request per event to an HTTP
 *       endpoint must).</li>
 *   <li><b>Nothing reported published after a failure.</b> Once an event of a run is not published, none of
 *       the later events of that run is reported {@link PublishResult.Kind#PUBLISHED}: the publisher reports
 *       them as failures (e.g. {@code retry("not sent: an earlier event of its aggregate failed")});
 *       {@link Runs#stopAfterFailure} does this for a target that answers every message on its own.</li>
 *   <li><b>Nothing sent after a failure, where the target allows.</b> Where the failure is known before the
 *       later events are sent (the client refuses a record, an earlier response was an error), the later
 *       events of the run are not sent at all. Where the target fails events one by one after they were
 *       all pipelined (see below per target), a later event may already be stored; the publisher must then
 *       still honour 2 as far as it knows, and say so in its documentation.</li>
 * </ol>
 * What the relay does with the outcomes, whatever the publisher reported: in every run the first event
 * that is not PUBLISHED keeps its outcome (FAILED with the retry policy's delay, or DEAD), and every later
 * event of that aggregate in the batch is <em>held</em>: not recorded as an attempt, its lease given back,
 * claimed again only after the failed one is published (the order guard). If the publisher did report a
 * later event PUBLISHED (breaking promise 2), the relay does not believe it: the event is held and sent
 * again after the earlier one, so the last copy the consumer gets is in order, and the relay logs a WARN.
 * A copy sent before the earlier event is a duplicate that the consumer's inbox absorbs, but it may have
 * been seen out of order first: that is the order violation a lane can cost on a target that fails events
 * one by one, bounded to the events pipelined behind a failure in one call (one batch at most).
 * <p>
 * Per target (the transports of this project):
 * <ul>
 *   <li><b>Kafka</b>: one idempotent producer, {@code max.in.flight.requests.per.connection <= 5}, key =
 *       aggregate id, so a run on one topic goes to one partition in order. Lane = the topic. A record the
 *       client refuses (too large for {@code max.request.size}, no metadata) fails before later ones are
 *       sent: those are not sent. A record the broker rejects (too large for the topic's
 *       {@code max.message.bytes}) is split out of its batch by the producer while later records of the
 *       partition may be appended after it: those may be stored and are then held and sent again.</li>
 *   <li><b>RabbitMQ</b>: one channel in confirm mode; the channel routes in publish order. A missing
 *       exchange closes the channel, which fails every later message; a message returned as unroutable
 *       ({@code mandatory}) or nacked while a later one of its aggregate is confirmed leaves that later one
 *       delivered: held and sent again.</li>
 *   <li><b>NATS JetStream</b>: asynchronous publishes in order on one connection; one subject is stored by
 *       one stream in arrival order. Lane = the subject. A publish rejected by the stream (no stream, size
 *       or limit) while a later one is stored leaves that one stored; its re-send carries the same
 *       {@code Nats-Msg-Id}, so within the stream's duplicate window the stream keeps the first copy (the
 *       stream holds it ahead of the earlier event) and acknowledges the re-send as a duplicate.</li>
 *   <li><b>HTTP</b>: one request per event: the publisher sends an event of a run only after the earlier
 *       one's 2xx response, so a failure sends nothing later of that run; runs of different aggregates go
 *       in parallel. Lane = the endpoint.</li>
 * </ul>
 */
@FunctionalInterface
public interface Publisher {

    /**
     * Starts publishing {@code records}; returns one stage per record, in the same order. In the default
     * ordered mode a call holds the events of one aggregate only as {@link #orderLane(OutboxRecord)} allows
     * (without a lane, at most one event per aggregate).
     */
    List<CompletionStage<PublishResult>> publish(List<OutboxRecord> records);

    /**
     * The ordered lane {@code event} goes out on, or {@code null} (the default) when this publisher keeps no
     * order between the events of one call. Consecutive events of one aggregate with equal lanes may be
     * handed over in one call, under the promises of this interface's documentation; the value needs only
     * {@code equals} and {@code hashCode} (a topic name, an endpoint name, a constant). Called by the relay
     * before each call, once per event, on the relay's thread; must be cheap and must not throw (an
     * exception counts as {@code null}).
     */
    default Object orderLane(OutboxRecord event) {
        return null;
    }

    /**
     * Where {@code event} goes, for the relay's {@code send} span and meters: the messaging system and the
     * topic, exchange, subject or endpoint name. Default null: unknown (traced as system {@code postbox}, the
     * event's topic or channel as the destination). Called on the relay's thread; must be cheap and must not
     * throw (an exception counts as null).
     */
    default Destination destination(OutboxRecord event) {
        return null;
    }
}
