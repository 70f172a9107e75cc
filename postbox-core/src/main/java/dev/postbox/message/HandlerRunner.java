package dev.postbox.message;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs handlers on one dedicated thread so that the calling worker thread can enforce the timeout. A
 * handler that overruns is interrupted and its thread abandoned (a handler that ignores interrupts keeps
 * running there, but can no longer record anything: the worker records the timeout and moves on with a
 * fresh thread).
 */
final class HandlerRunner implements AutoCloseable {

    private final String threadName;
    private ExecutorService executor;

    HandlerRunner(String threadName) {
        this.threadName = threadName;
        this.executor = newExecutor();
    }

    private ExecutorService newExecutor() {
        ThreadFactory threads = Executors.defaultThreadFactory();
        return Executors.newSingleThreadExecutor(r -> {
            Thread t = threads.newThread(r);
            t.setName(threadName);
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Runs {@code handler} on {@code event}; returns null on success, the handler's exception, a
     * {@link HandlerTimeoutException}, or an {@link InterruptedException} when the calling thread was interrupted.
     */
    Throwable run(MessageHandler handler, MessageRecord event, Duration timeout) {
        Future<?> future = executor.submit(() -> {
            handler.handle(event);
            return null;
        });
        try {
            future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause() != null ? e.getCause() : e;
        } catch (TimeoutException e) {
            future.cancel(true);
            executor.shutdownNow();
            executor = newExecutor();
            return new HandlerTimeoutException(event, timeout);
        } catch (InterruptedException e) {
            future.cancel(true);
            executor.shutdownNow();
            executor = newExecutor();
            return e;
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
