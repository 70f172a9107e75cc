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
