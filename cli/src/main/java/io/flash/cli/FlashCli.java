package io.flash.cli;

import io.flash.common.client.JobClient;
import io.flash.common.jobfile.JobFileException;
import io.flash.common.jobfile.JobFiles;
import io.flash.common.setup.PlatformSetup;
import io.flash.schema.FieldError;
import io.flash.schema.JobResult;
import io.flash.schema.JobState;
import io.flash.schema.JobSubmission;
import io.flash.schema.TaskSummary;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.avro.Schema;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * The Java half of {@code bin/flash}: talks to Flash through Kafka and the status API only (the
 * shell script starts and stops processes). Exit codes: 0 done (a job that succeeded), 1 a job that
 * did not or a platform that did not answer, 2 a command line or job file that is wrong.
 */
@Command(name = "flash", mixinStandardHelpOptions = true, scope = ScopeType.INHERIT, version = "flash 0.1.0",
        description = "Submit jobs to Flash and look at them.",
        subcommands = {FlashCli.Setup.class, FlashCli.SignIn.class, FlashCli.SignOut.class, FlashCli.Submit.class, CostCommands.Cost.class, CapacityCommands.Capacity.class,
                FlashCli.Status.class, FlashCli.Watch.class, FlashCli.Result.class, FlashCli.Cancel.class, ResubmitCommand.class,
                FlashCli.SchemaOf.class, FlashCli.Jobs.class, FlashCli.Logs.class, FlashCli.Frameworks.class,
                FlashCli.Why.class, FlashCli.Nodes.class, FlashCli.Console.class},
        footerHeading = "%nEnvironment:%n",
        footer = {"  FLASH_BOOTSTRAP_SERVERS   the broker (127.0.0.1:9092)",
                "  FLASH_REGISTRY_URL        the schema registry (http://127.0.0.1:8081)",
                "  FLASH_API_URL             ingest's status API (http://127.0.0.1:8090)",
                "  FLASH_OIDC_URL            sign-in (http://127.0.0.1:8180/realms/flash)",
                "  FLASH_LOGIN_FILE          the tokens of 'flash login' (~/.flash/login.json)",
                "  FLASH_KAFKA_USER, FLASH_KAFKA_PASSWORD  the broker login (secure mode)"})
public final class FlashCli implements Callable<Integer> {

    /** Held so the logging configuration is not garbage-collected. */
    private static final Logger APICURIO_LOG = Logger.getLogger("io.apicurio");

    @Spec
    CommandSpec spec;

    private final Map<String, String> environment;

    FlashCli(Map<String, String> environment) {
        this.environment = environment;
    }

    public static void main(String[] args) {
        APICURIO_LOG.setLevel(Level.SEVERE); // its client warns about Vert.x on every start
        CommandLine cli = commandLine(System.getenv());
        cli.setOut(new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), true));
        cli.setErr(new PrintWriter(new OutputStreamWriter(System.err, StandardCharsets.UTF_8), true));
        int code = cli.execute(args);
        cli.getOut().flush();
        cli.getErr().flush();
        System.exit(code);
    }

    /** The command line over this environment; a test sets its own streams and environment. */
    static CommandLine commandLine(Map<String, String> environment) {
        return new CommandLine(new FlashCli(environment));
    }

    /** {@code flash} alone: the usage, and the exit code of a wrong command line. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return 2;
    }

    String env(String name, String fallback) {
        return terminal().env(name, fallback);
    }

    String api() {
        return env("FLASH_API_URL", "http://127.0.0.1:8090");
    }

    String bootstrap() {
        return env("FLASH_BOOTSTRAP_SERVERS", "127.0.0.1:9092");
    }

    String registry() {
        return env("FLASH_REGISTRY_URL", "http://127.0.0.1:8081");
    }

    Terminal terminal() {
        return new Terminal(spec.commandLine().getOut(), spec.commandLine().getErr(), environment);
    }

    /** What every subcommand shares: the parent's environment and streams. */
    abstract static class Sub implements Callable<Integer> {
        @ParentCommand
        FlashCli flash;

        Terminal term() {
            return flash.terminal();
        }
    }

    @Command(name = "setup", description = "Create topics and set the registry's BACKWARD rule (secure mode: also the broker's logins and ACLs, as flash-admin).")
    static final class Setup extends Sub {
        @Override
        public Integer call() throws Exception {
            PlatformSetup.main(new String[0]);
            return 0;
        }
    }

    @Command(name = "login", description = {"Sign in to Flash's identity provider (secure mode): the password grant (password from the terminal or stdin),",
            "or --device: a URL and code to open in any browser; the tokens are kept in ~/.flash/login.json."})
    static final class SignIn extends Sub {
        @Option(names = "--device", description = "sign in through a browser, on any device")
        boolean device;

        @Parameters(arity = "0..1", paramLabel = "USER", description = "who signs in (default: the local user name)")
        String user;

        @Override
        public Integer call() throws Exception {
            return Login.fromEnvironment(term()).run(device, user);
        }
    }

    @Command(name = "logout", description = "Forget the tokens of 'flash login'.")
    static final class SignOut extends Sub {
        @Override
        public Integer call() throws Exception {
            return Login.fromEnvironment(term()).logout();
        }
    }

    @Command(name = "submit", description = "Publish a job file (YAML or JSON); prints the job id.")
    static final class Submit extends Sub {
        @Parameters(paramLabel = "FILE", description = "the job file")
        Path file;

        @Mixin
        WaitOptions waiting;

        @Override
        public Integer call() throws Exception {
            return flash.submit(term(), file, waiting.wait, waiting.timeoutSeconds);
        }
    }

    @Command(name = "status", description = "The job's latest state and its tasks (100 a page), from the status API.")
    static final class Status extends Sub {
        @Parameters(index = "0", paramLabel = "JOB_ID")
        String jobId;

        @Parameters(index = "1", arity = "0..1", paramLabel = "PAGE", defaultValue = "0", description = "which 100 tasks (from 0)")
        int page;

        @Override
        public Integer call() throws Exception {
            return StatusCommands.status(term(), flash.api(), jobId, page);
        }
    }

    @Command(name = "watch", description = "Live progress until the job ends.")
    static final class Watch extends Sub {
        @Parameters(paramLabel = "JOB_ID")
        String jobId;

        @Override
        public Integer call() throws Exception {
            return StatusCommands.watch(term(), flash.api(), jobId);
        }
    }

    @Command(name = "result", description = "The job's final result, when it has one.")
    static final class Result extends Sub {
        @Parameters(paramLabel = "JOB_ID")
        String jobId;

        @Override
        public Integer call() throws Exception {
            try (JobClient client = new JobClient(flash.bootstrap(), flash.registry())) {
                Optional<JobResult> result = client.result(jobId);
                if (result.isEmpty()) {
                    term().err().println("job " + jobId + " has no result yet; see 'flash status " + jobId + "'");
                    return 1;
                }
                flash.printResult(term(), result.get());
                return result.get().getState() == JobState.SUCCEEDED ? 0 : 1;
            }
        }
    }

    @Command(name = "cancel", description = "Stop the job: nothing new starts, running tasks are killed.")
    static final class Cancel extends Sub {
        @Parameters(index = "0", paramLabel = "JOB_ID")
        String jobId;

        @Parameters(index = "1..*", paramLabel = "REASON", description = "why, in words (kept with the job)")
        List<String> reason;

        @Override
        public Integer call() throws Exception {
            try (JobClient client = new JobClient(flash.bootstrap(), flash.registry())) {
                client.cancel(jobId, reason == null || reason.isEmpty() ? null : String.join(" ", reason));
            }
            term().out().println("cancel requested for " + jobId + "; follow it with: flash status " + jobId);
            return 0;
        }
    }

    @Command(name = "schema", description = "Print a record's full Avro schema (e.g. JobSubmission, JobResult).")
    static final class SchemaOf extends Sub {
        @Parameters(paramLabel = "NAME")
        String name;

        @Override
        public Integer call() throws Exception {
            Class<?> type;
            try {
                type = Class.forName("io.flash.schema." + name);
            } catch (ClassNotFoundException e) {
                term().err().println("no record named " + name + "; see schemas/src/main/avro for the names");
                return 2;
            }
            term().out().println(((Schema) type.getMethod("getClassSchema").invoke(null)).toString(true));
            return 0;
        }
    }

    @Command(name = "jobs", description = "List jobs (a signed-in user sees their own), last updated first.")
    static final class Jobs extends Sub {
        @Option(names = "--owner", paramLabel = "O")
        String owner;

        @Option(names = "--state", paramLabel = "S")
        String state;

        @Option(names = "--limit", paramLabel = "N", defaultValue = "50", description = "at most this many (default: ${DEFAULT-VALUE})")
        int limit;

        @Override
        public Integer call() throws Exception {
            return InspectCommands.jobs(term(), flash.api(), owner, state, limit);
        }
    }

    @Command(name = "logs", description = "Each attempt's output from flash.tasks.logs; -f follows it live.")
    static final class Logs extends Sub {
        @Option(names = {"-f", "--follow"}, description = "follow until the job ends")
        boolean follow;

        @Parameters(index = "0", paramLabel = "JOB_ID")
        String jobId;

        @Parameters(index = "1", arity = "0..1", paramLabel = "TASK[/SHARD]")
        String task;

        @Option(names = "--attempt", paramLabel = "N", description = "only this attempt (from 1)")
        Integer attempt;

        @Override
        public Integer call() throws Exception {
            return InspectCommands.logs(term(), flash.api(), follow, jobId, task, attempt);
        }
    }

    @Command(name = "frameworks", description = "Each framework shard: nodes, capacity, free, queue, last heartbeat.")
    static final class Frameworks extends Sub {
        @Override
        public Integer call() throws Exception {
            return InspectCommands.frameworks(term(), flash.api());
        }
    }

    @Command(name = "why", description = "Why each waiting task or shard waits, and every framework's room.")
    static final class Why extends Sub {
        @Parameters(index = "0", paramLabel = "JOB_ID")
        String jobId;

        @Parameters(index = "1", arity = "0..1", paramLabel = "TASK")
        String task;

        @Override
        public Integer call() throws Exception {
            return InspectCommands.why(term(), flash.api(), jobId, task);
        }
    }

    @Command(name = "nodes", description = "Flash's own nodes: framework, capacity, free, running, last heartbeat.")
    static final class Nodes extends Sub {
        @Override
        public Integer call() throws Exception {
            return InspectCommands.nodes(term(), flash.api());
        }
    }

    @Command(name = "console", description = "The web console's address (jobs, DAGs, Gantt, logs, frameworks); opens nothing.")
    static final class Console extends Sub {
        @Override
        public Integer call() throws Exception {
            return InspectCommands.console(term(), flash.api());
        }
    }

    int submit(Terminal term, Path file, boolean wait, long timeoutSeconds) throws Exception {
        if (!Files.isReadable(file)) {
            term.err().println("cannot read job file " + file);
            return 2;
        }
        JobSubmission job;
        try {
            job = JobFiles.read(file);
        } catch (JobFileException e) {
            term.err().println(file + ": " + e.getMessage());
            return 2;
        }
        try (JobClient client = new JobClient(bootstrap(), registry())) {
            String jobId = client.submit(job, Login.fromEnvironment(term).accessToken().orElse(null));
            term.out().println(jobId);
            if (!wait) {
                return 0;
            }
            term.err().println("submitted " + job.getName() + " (submission " + job.getSubmissionId() + "); waiting for its result…");
            return awaitOutcome(term, client, jobId, job.getSubmissionId(), timeoutSeconds);
        }
    }

    /** Waits for the job's result or rejection, printing progress meanwhile; the exit code says how it ended. */
    int awaitOutcome(Terminal term, JobClient client, String jobId, String submissionId, long timeoutSeconds) throws Exception {
        Thread progress = progressPrinter(term, api(), jobId);
        Optional<JobClient.Outcome> outcome;
        try {
            outcome = client.awaitOutcome(jobId, submissionId, Duration.ofSeconds(timeoutSeconds));
        } finally {
            progress.interrupt();
        }
        if (outcome.isEmpty()) {
            term.err().println("no result within " + timeoutSeconds + " s; the job may still be running: flash status " + jobId);
            return 1;
        }
        if (outcome.get().rejected() != null) {
            term.err().println("rejected:");
            for (FieldError e : outcome.get().rejected().getReasons()) {
                term.err().println("  " + e.getField() + ": " + e.getReason());
            }
            return 1;
        }
        printResult(term, outcome.get().result());
        return outcome.get().result().getState() == JobState.SUCCEEDED ? 0 : 1;
    }

    /** While submit --wait waits: a line whenever the job's progress changes (when the status API answers). */
    private static Thread progressPrinter(Terminal term, String api, String jobId) {
        Thread t = new Thread(() -> {
            String last = null;
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    String now = StatusCommands.progress(term, api, jobId);
                    if (now != null && !now.equals(last)) term.err().println("  " + now);
                    if (now != null) last = now;
                    Thread.sleep(2000);
                }
            } catch (InterruptedException e) {
                // the result is in
            }
        }, "progress");
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** Shards whose output a result shows; the status API and the job's log files have the rest. */
    private static final int SHARD_TAILS = 5;

    void printResult(Terminal term, JobResult r) {
        String api = api();
        term.out().printf("job %s (%s): %s exit=%s in %.1f s%n", r.getJobId(), r.getName(), r.getState(),
                r.getExitCode(), (r.getFinishedAt() - r.getAcceptedAt()) / 1000.0);
        term.out().printf("  cost: user %.6f, platform %.6f (flash cost %s)%n", r.getUserCost(), r.getPlatformCost(), r.getJobId());
        String perUnit = StatusCommands.costPerUnit(term, api, r.getJobId(), r.getUserCost() + r.getPlatformCost());
        if (!perUnit.isEmpty()) term.out().println("  " + perUnit);
        if (r.getReason() != null) {
            term.out().println("  reason: " + r.getReason());
        }
        for (TaskSummary t : r.getTasks()) {
            if (t.getShards() > 1) {
                term.out().printf("  task %-20s %-10s %d shards: %d succeeded, %d failed%n", t.getName(), t.getState(), t.getShards(),
                        t.getShardsSucceeded(), t.getShardsFailed());
                Map<String, String> tails = StatusCommands.shardTails(term, api, r.getJobId(), t.getName(), SHARD_TAILS);
                tails.forEach((shard, tail) -> {
                    term.out().println("    " + shard + ":");
                    tail.lines().forEach(line -> term.out().println("    | " + line));
                });
                if (tails.size() == SHARD_TAILS) {
                    term.out().println("    … the other shards': flash status " + r.getJobId() + "; every attempt's full log is in the job workspace, .flash/logs/");
                }
            } else {
                term.out().printf("  task %-20s %-10s attempts=%d exit=%s node=%s%n", t.getName(), t.getState(), t.getAttempts(),
                        t.getExitCode(), t.getNodeId());
            }
            if (t.getReason() != null) {
                term.out().println("    reason: " + t.getReason());
            }
            for (String output : t.getOutputs()) {
                term.out().println("    output: " + output);
            }
            if (t.getStdoutTail() != null && !t.getStdoutTail().isBlank()) {
                t.getStdoutTail().lines().forEach(line -> term.out().println("    | " + line));
            }
        }
    }
}
