package io.flash.cli;

import io.flash.common.client.JobClient;
import io.flash.common.jobfile.JobFileException;
import io.flash.common.jobfile.JobFiles;
import io.flash.common.setup.PlatformSetup;
import io.flash.schema.*;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.avro.Schema;

/**
 * The Java half of {@code bin/flash}: talks to Flash through Kafka only. The shell script handles
 * starting and stopping processes.
 */
public final class FlashCli {

    private static final String USAGE = """
            usage: flash <command>
              setup                    create topics and set the registry's BACKWARD rule (secure mode: also the
                                       broker's logins and ACLs, as flash-admin)
              login [--device] [USER]  sign in to Flash's identity provider (secure mode): the password grant
                                       (password from the terminal or stdin), or --device: a URL and code to
                                       open in any browser; the tokens are kept in ~/.flash/login.json
              logout                   forget them
              submit FILE [--wait] [--timeout SECONDS]
                                       publish a job file (YAML or JSON); prints the job id
              status JOB_ID [PAGE]     the job's latest state and its tasks (100 a page), from the status API
              watch JOB_ID             live progress until the job ends
              result JOB_ID            the job's final result, when it has one
              cancel JOB_ID [REASON]   stop the job: nothing new starts, running tasks are killed
              schema NAME              print a record's full Avro schema (e.g. JobSubmission, JobResult)
              jobs [--owner O] [--state S] [--limit N]
                                       list jobs (a signed-in user sees their own), last updated first
              logs [-f] JOB_ID [TASK[/SHARD]] [--attempt N]
                                       each attempt's output from flash.tasks.logs; -f follows it live
              frameworks               each framework shard: nodes, capacity, free, queue, last heartbeat
              why JOB_ID [TASK]        why each waiting task or shard waits, and every framework's room
              nodes                    Flash's own nodes: framework, capacity, free, running, last heartbeat
              console                  the web console's address (jobs, DAGs, Gantt, logs, frameworks); opens nothing
            environment: FLASH_BOOTSTRAP_SERVERS (127.0.0.1:9092), FLASH_REGISTRY_URL (http://127.0.0.1:8081),
                         FLASH_API_URL (http://127.0.0.1:8090, the ingest service's status API),
                         FLASH_OIDC_URL (http://127.0.0.1:8180/realms/flash), FLASH_LOGIN_FILE (~/.flash/login.json),
                         FLASH_KAFKA_USER / FLASH_KAFKA_PASSWORD (the broker login in the secure mode)
            """;

    /** Held so the logging configuration is not garbage-collected. */
    private static final Logger APICURIO_LOG = Logger.getLogger("io.apicurio");

    public static void main(String[] args) throws Exception {
        APICURIO_LOG.setLevel(Level.SEVERE); // its client warns about Vert.x on every start
        System.exit(run(args));
    }

    static int run(String[] args) throws Exception {
        if (args.length == 0 || args[0].equals("-h") || args[0].equals("--help")) {
            System.out.print(USAGE);
            return args.length == 0 ? 2 : 0;
        }
        String bootstrap = env("FLASH_BOOTSTRAP_SERVERS", "127.0.0.1:9092");
        String registry = env("FLASH_REGISTRY_URL", "http://127.0.0.1:8081");
        switch (args[0]) {
            case "setup" -> {
                PlatformSetup.main(new String[0]);
                return 0;
            }
            case "schema" -> {
                if (args.length != 2) {
                    System.err.print(USAGE);
                    return 2;
                }
                try {
                    Class<?> type = Class.forName("io.flash.schema." + args[1]);
                    System.out.println(((Schema) type.getMethod("getClassSchema").invoke(null)).toString(true));
                    return 0;
                } catch (ClassNotFoundException e) {
                    System.err.println("no record named " + args[1] + "; see schemas/src/main/avro for the names");
                    return 2;
                }
            }
            case "jobs" -> {
                return InspectCommands.jobs(env("FLASH_API_URL", "http://127.0.0.1:8090"), args);
            }
            case "logs" -> {
                return InspectCommands.logs(env("FLASH_API_URL", "http://127.0.0.1:8090"), args);
            }
            case "why" -> {
                return InspectCommands.why(env("FLASH_API_URL", "http://127.0.0.1:8090"), args);
            }
            case "frameworks" -> {
                return InspectCommands.frameworks(env("FLASH_API_URL", "http://127.0.0.1:8090"));
            }
            case "nodes" -> {
                return InspectCommands.nodes(env("FLASH_API_URL", "http://127.0.0.1:8090"));
            }
            case "console" -> {
                return InspectCommands.console(env("FLASH_API_URL", "http://127.0.0.1:8090"));
            }
            case "login" -> {
                return Login.fromEnvironment().run(args);
            }
            case "logout" -> {
                return Login.fromEnvironment().logout();
            }
            case "submit" -> {
                return submit(args, bootstrap, registry);
            }
            case "cancel" -> {
                if (args.length < 2) {
                    System.err.print(USAGE);
                    return 2;
                }
                try (JobClient client = new JobClient(bootstrap, registry)) {
                    client.cancel(args[1], args.length > 2 ? String.join(" ", Arrays.copyOfRange(args, 2, args.length)) : null);
                }
                System.out.println("cancel requested for " + args[1] + "; follow it with: flash status " + args[1]);
                return 0;
            }
            case "status" -> {
                if (args.length < 2) {
                    System.err.print(USAGE);
                    return 2;
                }
                return StatusCommands.status(env("FLASH_API_URL", "http://127.0.0.1:8090"), args[1],
                        args.length > 2 ? Integer.parseInt(args[2]) : 0);
            }
            case "watch" -> {
                if (args.length != 2) {
                    System.err.print(USAGE);
                    return 2;
                }
                return StatusCommands.watch(env("FLASH_API_URL", "http://127.0.0.1:8090"), args[1]);
            }
            case "result" -> {
                if (args.length != 2) {
                    System.err.print(USAGE);
                    return 2;
                }
                try (JobClient client = new JobClient(bootstrap, registry)) {
                    Optional<JobResult> result = client.result(args[1]);
                    if (result.isEmpty()) {
                        System.err.println("job " + args[1] + " has no result yet; see 'flash status " + args[1] + "'");
                        return 1;
                    }
                    printResult(result.get());
                    return result.get().getState() == JobState.SUCCEEDED ? 0 : 1;
                }
            }
            default -> {
                System.err.println("unknown command '" + args[0] + "'");
                System.err.print(USAGE);
                return 2;
            }
        }
    }

    private static int submit(String[] args, String bootstrap, String registry) throws Exception {
        if (args.length < 2) {
            System.err.print(USAGE);
            return 2;
        }
        Path file = Path.of(args[1]);
        boolean wait = false;
        long timeoutSeconds = 600;
        for (int i = 2; i < args.length; i++) {
            switch (args[i]) {
                case "--wait" -> wait = true;
                case "--timeout" -> timeoutSeconds = Long.parseLong(args[++i]);
                default -> {
                    System.err.println("unknown option " + args[i]);
                    return 2;
                }
            }
        }
        if (!Files.isReadable(file)) {
            System.err.println("cannot read job file " + file);
            return 2;
        }
        JobSubmission job;
        try {
            job = JobFiles.read(file);
        } catch (JobFileException e) {
            System.err.println(file + ": " + e.getMessage());
            return 2;
        }
        try (JobClient client = new JobClient(bootstrap, registry)) {
            String jobId = client.submit(job, Login.fromEnvironment().accessToken().orElse(null));
            System.out.println(jobId);
            if (!wait) {
                return 0;
            }
            System.err.println("submitted " + job.getName() + " (submission " + job.getSubmissionId() + "); waiting for its result…");
            Thread progress = progressPrinter(env("FLASH_API_URL", "http://127.0.0.1:8090"), jobId);
            Optional<JobClient.Outcome> outcome;
            try {
                outcome = client.awaitOutcome(jobId, job.getSubmissionId(), Duration.ofSeconds(timeoutSeconds));
            } finally {
                progress.interrupt();
            }
            if (outcome.isEmpty()) {
                System.err.println("no result within " + timeoutSeconds + " s; the job may still be running: flash status " + jobId);
                return 1;
            }
            if (outcome.get().rejected() != null) {
                System.err.println("rejected:");
                for (FieldError e : outcome.get().rejected().getReasons()) {
                    System.err.println("  " + e.getField() + ": " + e.getReason());
                }
                return 1;
            }
            printResult(outcome.get().result());
            return outcome.get().result().getState() == JobState.SUCCEEDED ? 0 : 1;
        }
    }

    /** While submit --wait waits: a line whenever the job's progress changes (when the status API answers). */
    private static Thread progressPrinter(String api, String jobId) {
        Thread t = new Thread(() -> {
            String last = null;
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    String now = StatusCommands.progress(api, jobId);
                    if (now != null && !now.equals(last)) System.err.println("  " + now);
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

    private static void printResult(JobResult r) {
        String api = env("FLASH_API_URL", "http://127.0.0.1:8090");
        System.out.printf("job %s (%s): %s exit=%s in %.1f s%n", r.getJobId(), r.getName(), r.getState(),
                r.getExitCode(), (r.getFinishedAt() - r.getAcceptedAt()) / 1000.0);
        if (r.getReason() != null) {
            System.out.println("  reason: " + r.getReason());
        }
        for (TaskSummary t : r.getTasks()) {
            if (t.getShards() > 1) {
                System.out.printf("  task %-20s %-10s %d shards: %d succeeded, %d failed%n", t.getName(), t.getState(), t.getShards(),
                        t.getShardsSucceeded(), t.getShardsFailed());
                Map<String, String> tails = StatusCommands.shardTails(api, r.getJobId(), t.getName(), SHARD_TAILS);
                tails.forEach((shard, tail) -> {
                    System.out.println("    " + shard + ":");
                    tail.lines().forEach(line -> System.out.println("    | " + line));
                });
                if (tails.size() == SHARD_TAILS) {
                    System.out.println("    … the other shards': flash status " + r.getJobId() + "; every attempt's full log is in the job workspace, .flash/logs/");
                }
            } else {
                System.out.printf("  task %-20s %-10s attempts=%d exit=%s node=%s%n", t.getName(), t.getState(), t.getAttempts(),
                        t.getExitCode(), t.getNodeId());
            }
            if (t.getReason() != null) {
                System.out.println("    reason: " + t.getReason());
            }
            for (String output : t.getOutputs()) {
                System.out.println("    output: " + output);
            }
            if (t.getStdoutTail() != null && !t.getStdoutTail().isBlank()) {
                t.getStdoutTail().lines().forEach(line -> System.out.println("    | " + line));
            }
        }
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
