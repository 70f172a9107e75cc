package dev.postbox.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code postbox cancel-sequence <type> <id> --reason R}: every unfinished, unleased event of one aggregate is cancelled. */
@Command(name = "cancel-sequence", mixinStandardHelpOptions = true,
        description = "Cancel every unfinished event of one aggregate (the whole blocked sequence).")
final class CancelSequenceCommand extends ActionCommand {

    @Parameters(index = "0", paramLabel = "AGGREGATE_TYPE", description = "e.g. ORDER")
    String aggregateType;

    @Parameters(index = "1", paramLabel = "AGGREGATE_ID", description = "e.g. ORD-1042")
    String aggregateId;

    @Override
    String path() {
        return "/api/aggregates/" + ConsoleClient.segment(aggregateType) + "/" + ConsoleClient.segment(aggregateId) + "/cancel";
    }
}
