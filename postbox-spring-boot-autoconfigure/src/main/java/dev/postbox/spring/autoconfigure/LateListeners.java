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

    /** Forwards to every {@link InboxListener} bean. */
    static final class Inbox implements InboxListener {
        private final ObjectProvider<InboxListener> beans;
        private volatile List<InboxListener> found;

        Inbox(ObjectProvider<InboxListener> beans) {
            this.beans = beans;
        }

        private List<InboxListener> all() {
            List<InboxListener> f = found;
            if (f == null) {
                f = beans.orderedStream().filter(l -> !(l instanceof Inbox)).toList();
                if (!f.isEmpty()) {
                    found = f;
                }
            }
            return f;
        }

        @Override
        public void delivered(String consumer, String eventNo, InboxResult.Outcome outcome) {
            all().forEach(l -> l.delivered(consumer, eventNo, outcome));
        }

        @Override
        public void failed(String consumer, String eventNo, Throwable failure) {
            all().forEach(l -> l.failed(consumer, eventNo, failure));
        }
    }

    /** Forwards to every {@link CompensationListener} bean. */
    static final class Compensation implements CompensationListener {
        private final ObjectProvider<CompensationListener> beans;
        private volatile List<CompensationListener> found;

        Compensation(ObjectProvider<CompensationListener> beans) {
            this.beans = beans;
        }

        @Override
        public void ran(CompensationJob job, CompensationJob.Run run) {
            List<CompensationListener> f = found;
            if (f == null) {
                f = beans.orderedStream().filter(l -> !(l instanceof Compensation)).toList();
                if (!f.isEmpty()) {
                    found = f;
                }
            }
            f.forEach(l -> l.ran(job, run));
        }
    }
}
