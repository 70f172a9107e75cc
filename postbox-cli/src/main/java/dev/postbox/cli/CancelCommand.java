package dev.postbox.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code postbox cancel <eventNo> --reason R}: a PENDING, FAILED or DEAD event becomes CANCELLED and is never
 * published; when it was its aggregate's head, the events behind it flow again.
 */
@Command(name = "cancel", mixinStandardHelpOptions = true,
        description = "Cancel one PENDING, FAILED or DEAD event: never published; its aggregate's later events flow.")
final class CancelCommand extends ActionCommand {

    @Parameters(index = "0", paramLabel = "EVENT_NO", description = "The event's event_no.")
    String eventNo;

    @Option(names = "--kind", paramLabel = "outbox|message", defaultValue = "outbox",
            description = "Outbox event (default) or message event.")
    Kind kind;

    @Override
    String path() {
        return "/api/events/" + kind.name() + "/" + ConsoleClient.segment(eventNo) + "/cancel";
    }
}
