package dev.postbox.http;

import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * At most {@code limit} asynchronous requests at once, without blocking anyone: a request over the
 * limit waits in a queue and is started by the completion of an earlier one.
 */
final class InFlight {

    private final int limit;
    private final AtomicInteger running = new AtomicInteger();
    private final Queue<Task<?>> waiting = new ConcurrentLinkedQueue<>();

    private record Task<T>(Supplier<CompletableFuture<T>> start, CompletableFuture<T> result) {
    }

    InFlight(int limit) {
        this.limit = limit;
    }

    <T> CompletableFuture<T> submit(Supplier<CompletableFuture<T>> start) {
        CompletableFuture<T> result = new CompletableFuture<>();
        waiting.add(new Task<>(start, result));
        drain();
        return result;
    }

    private void drain() {
        while (true) {
            int n = running.get();
            if (n >= limit) {
                return;
            }
            if (!running.compareAndSet(n, n + 1)) {
                continue;
            }
            Task<?> task = waiting.poll();
            if (task == null) {
                running.decrementAndGet();
                // a task added after the poll may have seen no free slot: look once more
                if (waiting.isEmpty()) {
                    return;
                }
                continue;
            }
            run(task);
        }
    }

    private <T> void run(Task<T> task) {
        CompletableFuture<T> started;
        try {
            started = task.start().get();
        } catch (RuntimeException e) {
            started = CompletableFuture.failedFuture(e);
        }
        started.whenComplete((value, error) -> {
            running.decrementAndGet();
            if (error != null) {
                task.result().completeExceptionally(error);
            } else {
                task.result().complete(value);
            }
            drain();
        });
    }

    int running() {
        return running.get();
    }
}
