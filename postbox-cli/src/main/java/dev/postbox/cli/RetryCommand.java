package dev.postbox.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code postbox retry <eventNo> --reason R}: a DEAD or FAILED event becomes PENDING with a fresh set of retries. */
@Command(name = "retry", mixinStandardHelpOptions = true,
        description = "Retry one DEAD or FAILED event (it becomes PENDING with fresh retries); fix the cause first.")
final class RetryCommand extends ActionCommand {

    @Parameters(index = "0", paramLabel = "EVENT_NO", description = "The event's event_no.")
    String eventNo;

    @Option(names = "--kind", paramLabel = "outbox|message", defaultValue = "outbox",
            description = "Outbox event (default) or message event.")
    Kind kind;

    @Override
    String path() {
        return "/api/events/" + kind.name() + "/" + ConsoleClient.segment(eventNo) + "/retry";
    }
}
