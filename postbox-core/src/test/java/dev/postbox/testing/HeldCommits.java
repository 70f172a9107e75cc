package dev.postbox.testing;

import javax.sql.DataSource;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

/**
 * A data source over another whose connections can keep one transaction open at its end: after
 * {@link #holdNext}, the first transaction that prepares a statement the predicate accepts stops in its
 * {@code commit()}, holding every lock it took, until {@link #release()}. For tests that drive Postbox's own
 * transactions (a relay's, a worker's, a person's action) through their real code and look at what waits
 * for them meanwhile. Everything else passes through unchanged.
 */
public final class HeldCommits extends dev.postbox.internal.poll.WrappingDataSource {

    private final AtomicReference<Hold> next = new AtomicReference<>();

    /** One armed hold: which transaction it stops, and the two moments of its life. */
    private static final class Hold {
        final Predicate<String> statement;
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch released = new CountDownLatch(1);

        Hold(Predicate<String> statement) {
            this.statement = statement;
        }
    }

    public HeldCommits(DataSource target) {
        super(target);
    }

    /** Arms the hold: the next transaction that prepares a statement {@code statement} accepts stops at its commit. */
    public void holdNext(Predicate<String> statement) {
        if (!next.compareAndSet(null, new Hold(statement))) {
            throw new IllegalStateException("a hold is armed already");
        }
    }

    /** Whether the held transaction has run all its statements and stands at its commit. */
    public boolean isHeld() {
        Hold h = next.get();
        return h != null && h.held.getCount() == 0;
    }

    /** Lets the held transaction commit (or an armed hold that caught nothing go); idempotent. */
    public void release() {
        Hold h = next.getAndSet(null);
        if (h != null) {
            h.released.countDown();
        }
    }

    private Connection wrap(Connection c) {
        Hold[] caught = new Hold[1];
        InvocationHandler handler = (proxy, method, args) -> {
            String name = method.getName();
            if ((name.equals("prepareStatement") || name.equals("prepareCall")) && args != null
                    && args[0] instanceof String sql) {
                Hold h = next.get();
                if (caught[0] == null && h != null && h.held.getCount() > 0 && h.statement.test(sql)) {
                    caught[0] = h;
                }
            } else if (name.equals("commit") && caught[0] != null) {
                Hold h = caught[0];
                caught[0] = null;
                if (h.held.getCount() > 0) {
                    h.held.countDown();
                    if (!h.released.await(2, TimeUnit.MINUTES)) {
                        throw new SQLException("held commit never released");
                    }
                }
            } else if (name.equals("rollback") && (args == null || args.length == 0)) {
                caught[0] = null;
            } else if (name.equals("equals") && args != null && args.length == 1) {
                return proxy == args[0];
            } else if (name.equals("hashCode") && (args == null || args.length == 0)) {
                return System.identityHashCode(proxy);
            }
            try {
                return method.invoke(c, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return (Connection) Proxy.newProxyInstance(HeldCommits.class.getClassLoader(), new Class<?>[] {Connection.class},
                handler);
    }

    @Override
    protected Connection prepare(Connection c) {
        return wrap(c);
    }
}
