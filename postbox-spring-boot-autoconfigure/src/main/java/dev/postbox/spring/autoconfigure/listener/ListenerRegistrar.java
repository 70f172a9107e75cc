package dev.postbox.spring.autoconfigure.listener;

import dev.postbox.spi.Envelope;
import dev.postbox.spring.PostboxListener;
import dev.postbox.spring.PostboxUpcaster;
import dev.postbox.spring.Upcaster;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Finds the {@link PostboxListener} and {@link PostboxUpcaster} methods of every bean as it is initialised; the
 * {@link PostboxListeners} build and start them once the context is refreshed.
 */
final class ListenerRegistrar implements BeanPostProcessor {

    /** A listener method found on a bean, not yet checked. */
    record Found(Object bean, Method invocable, Method declared, PostboxListener annotation) {
    }

    private final List<Found> listeners = new CopyOnWriteArrayList<>();
    private final List<Upcaster> upcasters = new CopyOnWriteArrayList<>();

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Class<?> target = AopUtils.getTargetClass(bean);
        if (target.getName().startsWith("java.") || target.getName().startsWith("org.springframework.")) {
            return bean;
        }
        Map<Method, PostboxListener> found = MethodIntrospector.selectMethods(target,
                (MethodIntrospector.MetadataLookup<PostboxListener>) m -> AnnotatedElementUtils.findMergedAnnotation(m, PostboxListener.class));
        found.forEach((m, a) -> listeners.add(new Found(bean, AopUtils.selectInvocableMethod(m, bean.getClass()), m, a)));
        Map<Method, PostboxUpcaster> ups = MethodIntrospector.selectMethods(target,
                (MethodIntrospector.MetadataLookup<PostboxUpcaster>) m -> AnnotatedElementUtils.findMergedAnnotation(m, PostboxUpcaster.class));
        ups.forEach((m, a) -> upcasters.add(new MethodUpcaster(bean, AopUtils.selectInvocableMethod(m, bean.getClass()), m, a)));
        return bean;
    }

    List<Found> listeners() {
        return List.copyOf(listeners);
    }

    List<Upcaster> upcasterMethods() {
        return List.copyOf(upcasters);
    }

    /** A {@link PostboxUpcaster} method as an {@link Upcaster}. */
    static final class MethodUpcaster implements Upcaster {
        private final Object bean;
        private final Method method;
        private final String name;
        private final PostboxUpcaster annotation;
        private final boolean takesEnvelope;

        MethodUpcaster(Object bean, Method method, Method declared, PostboxUpcaster annotation) {
            this.bean = bean;
            this.method = method;
            this.annotation = annotation;
            this.name = declared.getDeclaringClass().getName() + "." + declared.getName();
            Class<?>[] p = method.getParameterTypes();
            boolean ok = method.getReturnType() == String.class && p.length >= 1 && p.length <= 2 && p[0] == String.class
                    && (p.length == 1 || p[1] == Envelope.class);
            if (!ok) {
                throw new IllegalStateException("@PostboxUpcaster " + name + " must take (String payload) or (String payload,"
                        + " Envelope envelope) and return the upcast payload as a String");
            }
            this.takesEnvelope = p.length == 2;
            method.trySetAccessible();
        }

        @Override
        public String eventType() {
            return annotation.eventType();
        }

        @Override
        public int from() {
            return annotation.from();
        }

        @Override
        public int to() {
            return annotation.to() < 0 ? annotation.from() + 1 : annotation.to();
        }

        @Override
        public String upcast(String payload, Envelope envelope) throws Exception {
            return (String) (takesEnvelope ? ListenerMethod.call(method, bean, payload, envelope)
                    : ListenerMethod.call(method, bean, payload));
        }

        @Override
        public String toString() {
            return name;
        }
    }
}
