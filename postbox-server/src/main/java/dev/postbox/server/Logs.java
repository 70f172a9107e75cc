package dev.postbox.server;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import org.slf4j.LoggerFactory;

/** The server's log format: its logback.xml writes text; {@code server.json-logs: true} makes it JSON lines. */
final class Logs {

    private Logs() {
    }

    /**
     * Sends java.util.logging's records (the OpenTelemetry SDK logs through it: a failed export, the console exporter's
     * spans) to SLF4J, so they are formatted as the server's other lines, JSON included. The levels logback gives are
     * copied to java.util.logging (logback.xml's LevelChangePropagator), so a record below them costs nothing.
     * Idempotent.
     */
    static void bridgeJavaUtilLogging() {
        if (!org.slf4j.bridge.SLF4JBridgeHandler.isInstalled()) {
            org.slf4j.bridge.SLF4JBridgeHandler.removeHandlersForRootLogger();
            org.slf4j.bridge.SLF4JBridgeHandler.install();
        }
    }

    /**
     * From now on every log line is one JSON object (logback's JsonEncoder: timestamp, level, threadName,
     * loggerName, mdc, formattedMessage, throwable) on standard error, for a log shipper that parses JSON. Nothing happens
     * when logback is not the SLF4J binding (the server embedded with another one).
     */
    static void json() {
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            return;
        }
        Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        JsonEncoder encoder = new JsonEncoder();
        encoder.setContext(context);
        encoder.setWithSequenceNumber(false);
        encoder.setWithNanoseconds(false);
        encoder.setWithContext(false);
        encoder.setWithMessage(false); // the pattern with {} ...
        encoder.setWithArguments(false); // ... and its arguments: a shipper wants the message as read
        encoder.setWithFormattedMessage(true);
        encoder.start();
        ConsoleAppender<ILoggingEvent> appender = new ConsoleAppender<>();
        appender.setContext(context);
        appender.setName("JSON");
        appender.setTarget("System.err");
        appender.setEncoder(encoder);
        appender.start();
        root.detachAndStopAllAppenders();
        root.addAppender(appender);
    }
}
