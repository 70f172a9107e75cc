package dev.postbox.spring.autoconfigure.listener;

import dev.postbox.spi.Envelope;
import dev.postbox.spring.PostboxListener;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * One {@link PostboxListener} method: its bean, which parameter takes the payload (and as which type) and which
 * the envelope, the event types and versions it accepts. Built once at start-up, where a method that cannot be
 * served fails with a message naming it.
 */
final class ListenerMethod {

    private final Object bean;
    private final Method method;
    private final ListenerSpec spec;
    private final String name;
    private final int payloadIndex;
    private final Type payloadType;
    private final int envelopeIndex;
    private final Set<Integer> versions;

    /**
     * @param bean     the bean (a proxy, if it is one: the method is invoked on it, so its advice applies)
     * @param method   the method, invocable on {@code bean}
     * @param declared the method as declared on the target class (for names in errors)
     */
    ListenerMethod(Object bean, Method method, Method declared, PostboxListener annotation, PayloadMapper mapper,
                   org.springframework.core.env.PropertyResolver env) {
        this.bean = bean;
        this.method = method;
        this.name = declared.getDeclaringClass().getName() + "." + declared.getName();
        this.spec = ListenerSpec.of(annotation, env, name);
        int payload = -1;
        int envelope = -1;
        Type[] types = method.getGenericParameterTypes();
        for (int i = 0; i < types.length; i++) {
            if (types[i] == Envelope.class) {
                if (envelope >= 0) {
                    throw invalid("takes two Envelope parameters; at most one");
                }
                envelope = i;
            } else {
                if (payload >= 0) {
                    throw invalid("has two payload parameters (" + types[payload].getTypeName() + " and "
                            + types[i].getTypeName() + "); it takes at most one payload and one Envelope");
                }
                payload = i;
            }
        }
        this.payloadIndex = payload;
        this.payloadType = payload < 0 ? null : types[payload];
        this.envelopeIndex = envelope;
        if (payloadType != null && payloadType != String.class && mapper == PayloadMapper.NONE) {
            throw invalid("takes its payload as " + payloadType.getTypeName() + ", but there is no Jackson on the"
                    + " class path to map it: add com.fasterxml.jackson.core:jackson-databind (Boot 3) or"
                    + " tools.jackson.core:jackson-databind (Boot 4), or take the payload as a String");
        }
        if (spec.consumer().isBlank()) {
            throw invalid("has a blank consumer; name the consumer, e.g. consumer = \"inventory\"");
        }
        for (String t : spec.eventTypes()) {
            if (t == null || t.isBlank()) {
                throw invalid("names a blank event type in eventTypes");
            }
        }
        this.versions = new TreeSet<>();
        for (int v : spec.versions()) {
            if (v < 1) {
                throw invalid("accepts version " + v + "; event versions start at 1");
            }
            versions.add(v);
        }
        method.trySetAccessible();
    }

    private IllegalStateException invalid(String problem) {
        return new IllegalStateException("@PostboxListener " + name + " " + problem);
    }

    /** Class.method, for errors and health details. */
    String name() {
        return name;
    }

    /** Its attributes, placeholders resolved. */
    ListenerSpec spec() {
        return spec;
    }

    /** The event types it names; empty: every type no other method of its consumer names. */
    List<String> eventTypes() {
        return spec.eventTypes();
    }

    /** Whether it takes {@code version} (every version when it names none). */
    boolean accepts(int version) {
        return versions.isEmpty() || versions.contains(version);
    }

    /** The versions it names; empty: all. */
    Set<Integer> versions() {
        return versions;
    }

    /** Runs the method for {@code envelope} (already at an accepted version); throws what the method threw. */
    void invoke(Envelope envelope, PayloadMapper mapper) throws Exception {
        Object[] args = new Object[method.getParameterCount()];
        if (payloadIndex >= 0) {
            try {
                args[payloadIndex] = payloadType == String.class ? envelope.payload() : mapper.read(envelope.payload(), payloadType);
            } catch (Exception e) {
                throw new IllegalArgumentException("event " + envelope.eventNo() + " (" + envelope.eventType() + " v"
                        + envelope.eventVersion() + "): its payload cannot be read as " + payloadType.getTypeName()
                        + " for " + name + " by " + mapper.describe() + ": " + e.getMessage(), e);
            }
        }
        if (envelopeIndex >= 0) {
            args[envelopeIndex] = envelope;
        }
        call(method, bean, args);
    }

    /** Invokes {@code method} on {@code bean}, throwing what the method threw rather than its reflective wrapper. */
    static Object call(Method method, Object bean, Object... args) throws Exception {
        try {
            return method.invoke(bean, args);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof Exception ex) {
                throw ex;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw e;
        }
    }
}
