package dev.postbox.spring.autoconfigure;

import dev.postbox.common.ValidationException;
import dev.postbox.message.AfterMaxRetries;
import dev.postbox.message.MessageHandler;
import dev.postbox.message.MessageRecord;
import dev.postbox.message.MessageWorkerBuilder;
import dev.postbox.spring.EventTypeHandler;
import dev.postbox.spring.PostboxMessageHandler;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ReflectionUtils;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Collects the message-event handlers of the context: beans implementing {@link EventTypeHandler} and bean
 * methods annotated with {@link PostboxMessageHandler}. Two handlers for one event type fail the start-up,
 * naming both.
 */
final class MessageHandlers implements BeanPostProcessor {

    private record Entry(String source, MessageHandler handler, AfterMaxRetries afterMaxRetries) {
    }

    private final Map<String, Entry> byType = new LinkedHashMap<>();

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof EventTypeHandler h) {
            add(h.eventType(), "bean '" + beanName + "'", h, h.afterMaxRetries());
        }
        Class<?> type = AopUtils.getTargetClass(bean);
        Map<Method, PostboxMessageHandler> methods = MethodIntrospector.selectMethods(type,
                (MethodIntrospector.MetadataLookup<PostboxMessageHandler>) m ->
                        AnnotatedElementUtils.findMergedAnnotation(m, PostboxMessageHandler.class));
        for (Map.Entry<Method, PostboxMessageHandler> e : methods.entrySet()) {
            Method declared = e.getKey();
            String where = "method " + type.getName() + "." + declared.getName();
            if (declared.getParameterCount() != 1 || declared.getParameterTypes()[0] != MessageRecord.class) {
                throw new PostboxConfigurationException("@PostboxMessageHandler " + where + " must take exactly one"
                        + " MessageRecord parameter", "Declare it as void " + declared.getName() + "(MessageRecord event).");
            }
            Method invocable = AopUtils.selectInvocableMethod(declared, bean.getClass());
            ReflectionUtils.makeAccessible(invocable);
            add(e.getValue().value(), where, event -> invoke(invocable, bean, event), e.getValue().afterMaxRetries());
        }
        return bean;
    }

    private static void invoke(Method method, Object bean, MessageRecord event) throws Exception {
        try {
            method.invoke(bean, event);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception ex) {
                throw ex;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw e;
        }
    }

    private synchronized void add(String eventType, String source, MessageHandler handler, AfterMaxRetries after) {
        if (eventType == null || eventType.isBlank()) {
            throw new ValidationException("eventType", "of the message handler " + source + " must not be blank");
        }
        Entry previous = byType.putIfAbsent(eventType, new Entry(source, handler, after));
        if (previous != null) {
            throw new PostboxConfigurationException("Two Postbox message handlers for event type '" + eventType + "': "
                    + previous.source() + " and " + source, "Keep one handler per event type: remove one of them or"
                    + " give it the event type it is meant for.");
        }
    }

    synchronized boolean isEmpty() {
        return byType.isEmpty();
    }

    synchronized Set<String> eventTypes() {
        return Set.copyOf(byType.keySet());
    }

    synchronized void registerWith(MessageWorkerBuilder builder) {
        byType.forEach((type, e) -> builder.handler(type, e.handler(), e.afterMaxRetries()));
    }
}
