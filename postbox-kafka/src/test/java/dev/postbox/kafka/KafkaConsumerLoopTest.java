package dev.postbox.kafka;

import dev.postbox.common.ValidationException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The consumer loop's life on the polling engine: its thread, a close that wakes a long poll, commits
 * what was handled and closes the consumer on the loop's thread, and an unexpected error that stops it.
 */
class KafkaConsumerLoopTest extends KafkaTestBase {

    @Test
    void closeWakesALongPollCommitsWhatWasHandledAndEndsTheThread() throws Exception {
        String topic = kafka.createTopic("loop-close", 1);
        sendForeignRecord(topic);
        AtomicInteger rejected = new AtomicInteger();
        KafkaEnvelopeConsumer loop = consume(recording("loopclose"), topic).pollTimeout(Duration.ofSeconds(60))
                .listener(new KafkaEnvelopeConsumer.Listener() {
                    @Override
                    public void rejected(ConsumerRecord<String, byte[]> record, ValidationException problem) {
                        rejected.incrementAndGet();
                    }
                }).start();
        try {
            assertThat(loop.isRunning()).isTrue();
            assertThat(alive("postbox-kafka-loopclose")).as("the loop's thread, named after the consumer").isTrue();
            await(Duration.ofSeconds(30), "the foreign record handled and committed",
                    () -> rejected.get() == 1 && committed("loopclose", topic) == 1);
            Thread.sleep(300); // the loop is back in a poll that would wait a minute
        } finally {
            long start = System.nanoTime();
            loop.close();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("close() woke the 60 s poll")
                    .isLessThan(Duration.ofSeconds(8));
        }
        assertThat(loop.isRunning()).isFalse();
        assertThat(alive("postbox-kafka-loopclose")).as("the thread ended, the consumer closed on it").isFalse();
        assertThat(committed("loopclose", topic)).isEqualTo(1);
        kafka.deleteTopic(topic);
    }

    @Test
    void aRecordInHandWhenCloseBeginsFinishesAndIsCommitted() throws Exception {
        String topic = kafka.createTopic("loop-in-hand", 1);
        sendForeignRecord(topic);
        CountDownLatch inHand = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        KafkaEnvelopeConsumer loop = consume(recording("loopinhand"), topic).listener(new KafkaEnvelopeConsumer.Listener() {
            @Override
            public void rejected(ConsumerRecord<String, byte[]> record, ValidationException problem) {
                inHand.countDown();
                try {
                    release.await(20, TimeUnit.SECONDS); // slow work on the loop's thread
                } catch (InterruptedException e) {
                    throw new IllegalStateException("the record in hand was interrupted", e);
                }
            }
        }).start();
        assertThat(inHand.await(30, TimeUnit.SECONDS)).isTrue();
        Thread closer = new Thread(loop::close, "test-closer");
        closer.start();
        Thread.sleep(300); // close() has woken the consumer and waits for the loop
        assertThat(closer.isAlive()).as("close() waits for the record in hand").isTrue();
        release.countDown();
        closer.join(10_000);
        assertThat(closer.isAlive()).isFalse();
        assertThat(alive("postbox-kafka-loopinhand")).isFalse();
        assertThat(committed("loopinhand", topic)).as("the handled record was committed despite the wake-up")
                .isEqualTo(1);
        kafka.deleteTopic(topic);
    }

    @Test
    void aListenerThatThrowsStopsTheLoopForGoodWithoutCommittingItsRecord() throws Exception {
        String topic = kafka.createTopic("loop-error", 1);
        sendForeignRecord(topic);
        AtomicInteger calls = new AtomicInteger();
        try (KafkaEnvelopeConsumer loop = consume(recording("looperror"), topic).listener(new KafkaEnvelopeConsumer.Listener() {
            @Override
            public void rejected(ConsumerRecord<String, byte[]> record, ValidationException problem) {
                calls.incrementAndGet();
                throw new IllegalStateException("metrics backend down");
            }
        }).start()) {
            await(Duration.ofSeconds(30), "the loop to stop", () -> !loop.isRunning());
            await(Duration.ofSeconds(10), "its thread to end", () -> !alive("postbox-kafka-looperror"));
        }
        assertThat(calls).as("no turn after the error").hasValue(1);
        assertThat(committed("looperror", topic)).as("the record was not committed").isEqualTo(-1);
        kafka.deleteTopic(topic);
    }

    /** A record without Postbox headers: the loop rejects it (and commits it) without touching the database. */
    private void sendForeignRecord(String topic) throws Exception {
        try (KafkaProducer<String, byte[]> raw = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                kafka.bootstrapServers()), new StringSerializer(), new ByteArraySerializer())) {
            raw.send(new ProducerRecord<>(topic, "k", "{\"hello\":1}".getBytes(StandardCharsets.UTF_8))).get(20, TimeUnit.SECONDS);
        }
    }

    private static boolean alive(String threadName) {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals(threadName) && t.isAlive());
    }

    private long committed(String group, String topic) {
        try {
            Map<TopicPartition, OffsetAndMetadata> offsets = kafka.admin().listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
            OffsetAndMetadata o = offsets.get(new TopicPartition(topic, 0));
            return o == null ? -1 : o.offset();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
