package dev.postbox.cli;

import picocli.CommandLine.Command;

import java.util.LinkedHashMap;
import java.util.Map;

/** {@code postbox whoami}: who the console takes these credentials for, and what that operator may do. */
@Command(name = "whoami", mixinStandardHelpOptions = true,
        description = "Who the console signs you in as, your permissions, and whether it is read-only.")
final class WhoamiCommand extends ApiCommand {

    @Override
    int execute(ConsoleClient console) {
        Map<?, ?> me = console.me();
        if (json()) {
            Map<String, Object> shown = new LinkedHashMap<>();
            me.forEach((k, v) -> {
                if (!"csrfToken".equals(k)) { // a session secret: not for logs or pipes
                    shown.put(String.valueOf(k), v);
                }
            });
            printJson(shown);
            return ExitCode.OK;
        }
        out().println(Fields.text(me, "name") + " at " + console.base() + ": may "
                + String.join(", ", Fields.list(me, "permissions").stream().map(p -> String.valueOf(p).toLowerCase()).toList())
                + (Fields.flag(me, "readOnly") ? " (the console is read-only: every change is refused)" : ""));
        out().flush();
        return ExitCode.OK;
    }
}
