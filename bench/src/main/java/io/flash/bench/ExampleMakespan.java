package io.flash.bench;
import io.flash.ingest.core.validation.JobValidator;
import io.flash.ingest.core.validation.Limits;
import io.flash.ingest.core.validation.ValidationResult;

import io.flash.common.client.JobClient;
import io.flash.common.jobfile.JobFiles;
import io.flash.planner.core.Shards;
import io.flash.schema.*;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.*;

/**
 * Makespan of an example job through a running Flash against the same commands run directly with
 * `docker run`, measured in the same run. The direct run executes the validated job exactly as
 * Flash would — the same images, argv, per-shard environment, cpu and memory limits, user,
 * read-only root, workspace and work mounts — one DAG level after another, every task of a level
 * and every shard of a task at once, which is the parallelism Flash's planner allows.
 *
 * Usage: ExampleMakespan JOB_FILE [rounds]; FLASH_BOOTSTRAP_SERVERS / FLASH_REGISTRY_URL select the platform.
 */
public final class ExampleMakespan {

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        String bootstrap = Optional.ofNullable(System.getenv("FLASH_BOOTSTRAP_SERVERS")).orElse("127.0.0.1:9092");
        String registry = Optional.ofNullable(System.getenv("FLASH_REGISTRY_URL")).orElse("http://127.0.0.1:8081");
        String api = Optional.ofNullable(System.getenv("FLASH_API_URL")).orElse("http://127.0.0.1:8090");
        LevelTimes levels = new LevelTimes();
        List<Double> flash = new ArrayList<>(), direct = new ArrayList<>();
        try (JobClient client = new JobClient(bootstrap, registry); JobClient.ResultStream results = client.openResults()) {
            for (int i = 0; i < rounds; i++) {
                JobSubmission job = JobFiles.read(file);
                job.setSubmissionId(job.getName() + "-" + UUID.randomUUID());
                long start = System.nanoTime(), submittedAt = System.currentTimeMillis();
                String jobId = client.submit(job);
                JobResult result = results.await(jobId, Duration.ofMinutes(20)).orElseThrow();
                long resultSeenAt = System.currentTimeMillis();
                if (result.getState() != JobState.SUCCEEDED) throw new IllegalStateException("flash run failed: " + result.getReason());
                flash.add((System.nanoTime() - start) / 1e9);
                levels.add(api, jobId, job, submittedAt, resultSeenAt);
                direct.add(runDirect(JobFiles.read(file)));
                System.err.printf(Locale.ROOT, "round %d/%d: flash %.1f s, docker run %.1f s%n", i + 1, rounds, flash.get(i), direct.get(i));
            }
        }
        double f = median(flash), d = median(direct);
        System.out.printf(Locale.ROOT, "%s (%d rounds, median): flash %.1f s, direct docker run %.1f s, ratio %.2f%n",
                file.getFileName(), rounds, f, d, f / d);
        System.out.print(levels.table());
    }

    /** Runs the job level by level with plain `docker run`; returns the makespan in seconds. */
    static double runDirect(JobSubmission submission) throws Exception {
        ValidationResult validated = new JobValidator(Limits.defaults()).validate(submission, "direct-" + UUID.randomUUID(), "direct", 0L);
        if (!validated.isAccepted()) throw new IllegalStateException("invalid job: " + validated.errors());
        Path root = Files.createTempDirectory("flash-direct");
        Path workspace = open(root.resolve("workspace"));
        Map<String, TaskDefinition> byName = new LinkedHashMap<>();
        validated.accepted().getTasks().forEach(t -> byName.put(t.getName(), t));
        Set<String> done = new HashSet<>();
        ExecutorService pool = Executors.newCachedThreadPool();
        long start = System.nanoTime();
        try {
            while (done.size() < byName.size()) {
                List<TaskDefinition> level = byName.values().stream()
                        .filter(t -> !done.contains(t.getName()) && done.containsAll(t.getDependsOn())).toList();
                List<Future<Integer>> runs = new ArrayList<>();
                for (TaskDefinition task : level) {
                    int shards = task.getScatter() == null ? 1 : task.getScatter().getShards();
                    for (int s = 0; s < shards; s++) {
                        TaskDefinition unit = task.getScatter() == null ? task : Shards.forShard(task, s);
                        Path work = open(root.resolve("work-" + task.getName() + "-" + s));
                        runs.add(pool.submit(() -> dockerRun(unit, workspace, work)));
                    }
                }
                for (Future<Integer> run : runs) {
                    if (run.get() != 0) throw new IllegalStateException("a direct run failed in level " + level);
                }
                level.forEach(t -> done.add(t.getName()));
            }
            return (System.nanoTime() - start) / 1e9;
        } finally {
            pool.shutdownNow();
            new ProcessBuilder("rm", "-rf", root.toString()).start().waitFor();
        }
    }

    static int dockerRun(TaskDefinition task, Path workspace, Path work) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("docker", "run", "--rm", "--network", "none", "--read-only",
                "--tmpfs", "/tmp", "-u", "65534:65534", "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
                "--cpus", Double.toString(task.getResources().getCpu()), "-m", Long.toString(task.getResources().getMemoryBytes()),
                "-v", workspace + ":/workspace", "-v", work + ":/work", "-w", "/work", "-e", "HOME=/work"));
        task.getEnv().forEach((k, v) -> cmd.addAll(List.of("-e", k + "=" + v)));
        cmd.add(task.getImage());
        cmd.addAll(task.getCommand());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        return p.waitFor();
    }

    static Path open(Path dir) throws Exception {
        Files.createDirectories(dir);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        return dir;
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }
}
