package dev.postbox.spring.autoconfigure;

import dev.postbox.compensation.CompensationJob;
import dev.postbox.compensation.CompensationListener;
import dev.postbox.inbox.InboxListener;
import dev.postbox.inbox.InboxResult;
import org.springframework.beans.factory.ObjectProvider;

import java.util.List;

/**
 * The Postbox bean's inbox and compensation listeners: the application's {@link InboxListener} and
 * {@link CompensationListener} beans (the starter's meters among them), looked up when the first event comes
 * rather than when the Postbox is built, because those beans are made from the Postbox. Once a lookup finds any, it
 * is kept; until then each event looks again (cheap, and only until the context has started).
 */
final class LateListeners {

    private LateListeners() {
    }

    /** The beans of one listener type, looked up until a lookup finds any, then kept. */
    private static final class Found<T> {
        private final ObjectProvider<T> beans;
        private final Class<?> self;
        private volatile List<T> found;

        Found(ObjectProvider<T> beans, Class<?> self) {
            this.beans = beans;
            this.self = self;
        }

        List<T> all() {
            List<T> f = found;
            if (f == null) {
                f = beans.orderedStream().filter(l -> !self.isInstance(l)).toList();
                if (!f.isEmpty()) {
                    found = f;
                }
            }
            return f;
        }
    }

    /** Forwards to every {@link InboxListener} bean. */
    static final class Inbox implements InboxListener {
        private final Found<InboxListener> listeners;

        Inbox(ObjectProvider<InboxListener> beans) {
            this.listeners = new Found<>(beans, Inbox.class);
        }

        @Override
        public void delivered(String consumer, String eventNo, InboxResult.Outcome outcome) {
            listeners.all().forEach(l -> l.delivered(consumer, eventNo, outcome));
        }

        @Override
        public void failed(String consumer, String eventNo, Throwable failure) {
            listeners.all().forEach(l -> l.failed(consumer, eventNo, failure));
        }
    }

    /** Forwards to every {@link CompensationListener} bean. */
    static final class Compensation implements CompensationListener {
        private final Found<CompensationListener> listeners;

        Compensation(ObjectProvider<CompensationListener> beans) {
            this.listeners = new Found<>(beans, Compensation.class);
        }

        @Override
        public void ran(CompensationJob job, CompensationJob.Run run) {
            listeners.all().forEach(l -> l.ran(job, run));
        }
    }
}
