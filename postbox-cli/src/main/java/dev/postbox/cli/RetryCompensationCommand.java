package dev.postbox.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.util.Map;

/** {@code postbox retry-compensation <bizType> <bizKey> <actionType> --reason R}: a FAILED compensation runs again. */
@Command(name = "retry-compensation", mixinStandardHelpOptions = true,
        description = "Run a FAILED compensation again (its row becomes claimable by the compensation job).")
final class RetryCompensationCommand extends ActionCommand {

    @Parameters(index = "0", paramLabel = "BIZ_TYPE", description = "e.g. ORDER")
    String bizType;

    @Parameters(index = "1", paramLabel = "BIZ_KEY", description = "e.g. ORD-1042")
    String bizKey;

    @Parameters(index = "2", paramLabel = "ACTION_TYPE", description = "e.g. CANCEL_ORDER")
    String actionType;

    @Override
    String path() {
        return "/api/compensations/retry";
    }

    @Override
    Map<String, Object> body() {
        return ConsoleClient.map("bizType", bizType, "bizKey", bizKey, "actionType", actionType);
    }
}
