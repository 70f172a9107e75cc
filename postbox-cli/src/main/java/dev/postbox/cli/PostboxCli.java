package dev.postbox.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code postbox} command: the operations console's HTTP JSON API from a terminal or a script, as one
 * authenticated operator. Every subcommand is one or a few API calls; {@code --output json} prints the API's
 * JSON as one document (for {@code jq}), the default prints aligned tables. Exit codes are in {@link ExitCode}
 * and in {@code postbox --help}.
 *
 * <p>The password never has to be an argument (which {@code ps} shows): it comes from {@code POSTBOX_PASSWORD},
 * another variable ({@code --password-env}), a file ({@code --password-file}), standard input
 * ({@code --password-stdin}) or a prompt ({@code --password} without a value); {@code --password=SECRET} works
 * with a warning.
 */
@Command(name = "postbox", mixinStandardHelpOptions = true, versionProvider = PostboxCli.Version.class,
        usageHelpAutoWidth = true, sortOptions = false,
        description = "The Postbox operations console from the command line: find why an event did not arrive and fix it.",
        subcommands = {StatusCommand.class, SearchCommand.class, ShowCommand.class, BlockedCommand.class,
                RetryCommand.class, CancelCommand.class, CancelSequenceCommand.class, RetryCompensationCommand.class,
                BulkCommand.class, AuditCommand.class, WhoamiCommand.class, CommandLine.HelpCommand.class},
        footerHeading = "%nEnvironment:%n",
        footer = {"  POSTBOX_URL       the console (default " + PostboxCli.DEFAULT_URL + ")",
                "  POSTBOX_USER      the operator's user name",
                "  POSTBOX_PASSWORD  the password (unless another --password... option says)",
                "%nExit codes:",
                "  0  done (also an action that found nothing to change)",
                "  1  error: the console unreachable or failing, a failed bulk run",
                "  2  usage: bad command line, or input the console refused (names the field)",
                "  3  status: the console reports a CRITICAL problem",
                "  4  not found: no such event, bulk run or audit entry",
                "  5  denied: wrong user or password (401), missing permission or",
                "     read-only console (403)"})
public final class PostboxCli {

    /** Where the console is when neither {@code --url} nor {@code POSTBOX_URL} says. */
    static final String DEFAULT_URL = "http://localhost:8080/postbox";

    enum Output { table, json }

    @Option(names = "--url", paramLabel = "URL", scope = ScopeType.INHERIT,
            description = "The console, e.g. http://host:8080/postbox (default: $POSTBOX_URL, else " + DEFAULT_URL + ").")
    String url;

    @Option(names = {"-u", "--user"}, paramLabel = "USER", scope = ScopeType.INHERIT,
            description = "The operator (default: $POSTBOX_USER).")
    String user;

    @Option(names = "--password-env", paramLabel = "VAR", scope = ScopeType.INHERIT,
            description = "Read the password from environment variable VAR (default: POSTBOX_PASSWORD).")
    String passwordEnv;

    @Option(names = "--password-file", paramLabel = "FILE", scope = ScopeType.INHERIT,
            description = "Read the password from the first line of FILE.")
    Path passwordFile;

    @Option(names = "--password-stdin", scope = ScopeType.INHERIT,
            description = "Read the password from the first line of standard input.")
    boolean passwordStdin;

    @Option(names = "--password", paramLabel = "SECRET", arity = "0..1", fallbackValue = PROMPT, scope = ScopeType.INHERIT,
            description = "Ask for the password on the terminal; --password=SECRET is accepted but shows in ps.")
    String password;

    @Option(names = {"-o", "--output"}, paramLabel = "table|json", scope = ScopeType.INHERIT,
            description = "table (default): aligned columns; json: the API's JSON, one document.")
    Output output;

    private static final String PROMPT = "\u0000prompt";

    private final Terminal terminal;
    private ConsoleClient client;

    PostboxCli(Terminal terminal) {
        this.terminal = terminal;
    }

    /** Runs {@code postbox} with the process's arguments, environment and terminal, and exits with its code. */
    public static void main(String[] args) {
        PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
        PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
        System.exit(run(args, Terminal.system(), out, err));
    }

    /** Runs one command line and returns its exit code; nothing is read from or written to the process's own streams. */
    static int run(String[] args, Terminal terminal, PrintWriter out, PrintWriter err) {
        CommandLine cl = new CommandLine(new PostboxCli(terminal));
        cl.setOut(out);
        cl.setErr(err);
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            if (ex instanceof CliException e) {
                commandLine.getErr().println("postbox: " + e.getMessage());
                commandLine.getErr().flush();
                return e.exitCode();
            }
            throw ex;
        });
        int code = cl.execute(args);
        out.flush();
        err.flush();
        return code;
    }

    Terminal terminal() {
        return terminal;
    }

    Output output() {
        return output == null ? Output.table : output;
    }

    /** The client for the console, made on first use from the options and the environment. */
    ConsoleClient client(PrintWriter err) {
        if (client == null) {
            String u = url != null ? url : env("POSTBOX_URL", DEFAULT_URL);
            String who = user != null ? user : env("POSTBOX_USER", null);
            client = new ConsoleClient(u, who, who == null ? new char[0] : password(err));
        }
        return client;
    }

    private char[] password(PrintWriter err) {
        List<String> given = new ArrayList<>();
        if (passwordEnv != null) {
            given.add("--password-env");
        }
        if (passwordFile != null) {
            given.add("--password-file");
        }
        if (passwordStdin) {
            given.add("--password-stdin");
        }
        if (password != null) {
            given.add("--password");
        }
        if (given.size() > 1) {
            throw new CliException(ExitCode.USAGE, String.join(" and ", given) + " are exclusive: give the password one way");
        }
        if (passwordEnv != null) {
            String v = terminal.env(passwordEnv);
            if (v == null) {
                throw new CliException(ExitCode.USAGE, "--password-env: environment variable " + passwordEnv + " is not set");
            }
            return v.toCharArray();
        }
        if (passwordFile != null) {
            try {
                List<String> lines = Files.readAllLines(passwordFile, StandardCharsets.UTF_8);
                return (lines.isEmpty() ? "" : lines.get(0)).toCharArray();
            } catch (NoSuchFileException e) {
                throw new CliException(ExitCode.USAGE, "--password-file: no such file: " + passwordFile);
            } catch (IOException e) {
                throw new CliException(ExitCode.USAGE, "--password-file: cannot read " + passwordFile + ": " + e.getMessage());
            }
        }
        if (passwordStdin) {
            return Terminal.firstLine(terminal.stdin()).toCharArray();
        }
        if (PROMPT.equals(password)) {
            if (!terminal.interactive()) {
                throw new CliException(ExitCode.USAGE, "--password: no terminal to ask on; use --password-env,"
                        + " --password-file or --password-stdin");
            }
            char[] typed = terminal.askSecret("Password for " + (user != null ? user : env("POSTBOX_USER", "")) + ": ");
            return typed == null ? new char[0] : typed;
        }
        if (password != null) {
            err.println("postbox: warning: a password given as an argument shows in ps and in the shell's history;"
                    + " prefer POSTBOX_PASSWORD, --password-file or --password-stdin");
            err.flush();
            return password.toCharArray();
        }
        String v = terminal.env("POSTBOX_PASSWORD");
        if (v != null) {
            return v.toCharArray();
        }
        if (terminal.interactive()) {
            char[] typed = terminal.askSecret("Password for " + (user != null ? user : env("POSTBOX_USER", "")) + ": ");
            return typed == null ? new char[0] : typed;
        }
        throw new CliException(ExitCode.USAGE, "no password for user " + (user != null ? user : env("POSTBOX_USER", ""))
                + ": set POSTBOX_PASSWORD, or give --password-env, --password-file or --password-stdin");
    }

    private String env(String name, String otherwise) {
        String v = terminal.env(name);
        return v == null || v.isBlank() ? otherwise : v;
    }

    /** The version from the jar's manifest (the Maven project's). */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = PostboxCli.class.getPackage().getImplementationVersion();
            return new String[] {"postbox " + (v == null ? "(development build)" : v)};
        }
    }
}
