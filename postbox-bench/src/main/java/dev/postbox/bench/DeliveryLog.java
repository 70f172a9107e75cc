package dev.postbox.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The sink's durable history: one tab-separated line per delivery, in arrival order
 * ({@code received_ms, event_no header, aggregate, seq, producer, rollback}). {@link #append} returns once
 * the line is on disk: one writer thread writes whatever has queued up and {@code fsync}s once for all of
 * it (group commit). A line cut by a kill of the process was never acknowledged; {@link #read} skips it.
 */
final class DeliveryLog implements AutoCloseable {

    private static final long APPEND_TIMEOUT_MS = 10_000;

    /** One delivery as the sink saw it. */
    record Delivery(long receivedMs, String eventNo, ChaosPayload payload) {

        String line() {
            return receivedMs + "\t" + eventNo + "\t" + payload.aggregate() + "\t" + payload.seq() + "\t"
                    + payload.producer() + "\t" + payload.rollback() + "\n";
        }

        /** The delivery of a line, or null when the line is cut short. */
        static Delivery parse(String line) {
            String[] f = line.split("\t", -1);
            if (f.length != 6 || !(f[5].equals("true") || f[5].equals("false"))) {
                return null;
            }
            try {
                return new Delivery(Long.parseLong(f[0]), f[1], new ChaosPayload(f[2], Long.parseLong(f[3]),
                        Integer.parseInt(f[4]), Boolean.parseBoolean(f[5])));
            } catch (NumberFormatException e) {
                return null;
            }
        }
    }

    private record Pending(byte[] line, CompletableFuture<Void> written) {
    }

    private final FileChannel channel;
    private final BlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
    private final Thread writer;
    private volatile boolean closed;

    private DeliveryLog(FileChannel channel) {
        this.channel = channel;
        this.writer = new Thread(this::writeLoop, "delivery-log-writer");
        writer.setDaemon(true);
        writer.start();
    }

    /** Opens {@code file} for appending (created if absent): a restarted sink continues the same history. */
    static DeliveryLog open(Path file) throws IOException {
        return new DeliveryLog(FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND));
    }

    /** Appends {@code d} and returns when it is on disk. Thread-safe. */
    void append(Delivery d) throws IOException {
        Pending p = new Pending(d.line().getBytes(StandardCharsets.UTF_8), new CompletableFuture<>());
        queue.add(p);
        try {
            p.written().get(APPEND_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while writing the delivery log", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("delivery log write failed", e);
        }
    }

    private void writeLoop() {
        List<Pending> group = new ArrayList<>();
        while (!closed) {
            try {
                group.add(queue.take());
                queue.drainTo(group);
                int size = 0;
                for (Pending p : group) {
                    size += p.line().length;
                }
                ByteBuffer buffer = ByteBuffer.allocate(size);
                group.forEach(p -> buffer.put(p.line()));
                buffer.flip();
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                channel.force(false);
                group.forEach(p -> p.written().complete(null));
            } catch (InterruptedException e) {
                return;
            } catch (IOException | RuntimeException e) {
                group.forEach(p -> p.written().completeExceptionally(e));
            }
            group.clear();
        }
    }

    /** Every complete line of {@code file}, in order. */
    static List<Delivery> read(Path file) throws IOException {
        List<Delivery> out = new ArrayList<>();
        if (!Files.exists(file)) {
            return out;
        }
        String text = Files.readString(file, StandardCharsets.UTF_8);
        int start = 0;
        for (int nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
            Delivery d = Delivery.parse(text.substring(start, nl));
            if (d != null) {
                out.add(d);
            }
            start = nl + 1;
        }
        return out;
    }

    @Override
    public void close() {
        closed = true;
        writer.interrupt();
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing at exit
        }
    }
}
