package io.flash.bench;

import io.flash.common.client.JobClient;
import io.flash.schema.*;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.*;

/**
 * Submit-to-result latency of the one-task hello job through a running Flash, against the baseline
 * of the same container run directly with `docker run --rm`, measured in the same run and
 * interleaved (one of each per round) so machine noise hits both alike. Also the executor's own
 * share: from the framework placing the attempt (PLACED) to the executor reporting its exit
 * (SUCCEEDED), read from the task events — assignment delivery, create, start, run, log drain,
 * report — against the same `docker run --rm`.
 *
 * Usage: HelloLatency [rounds] [csv]; FLASH_BOOTSTRAP_SERVERS / FLASH_REGISTRY_URL select the platform.
 */
public final class HelloLatency {

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        Path csv = Path.of(args.length > 1 ? args[1] : "bench/target/hello-latency.csv");
        String bootstrap = Optional.ofNullable(System.getenv("FLASH_BOOTSTRAP_SERVERS")).orElse("127.0.0.1:9092");
        String registry = Optional.ofNullable(System.getenv("FLASH_REGISTRY_URL")).orElse("http://127.0.0.1:8081");
        List<Double> flash = new ArrayList<>(), docker = new ArrayList<>(), executor = new ArrayList<>();
        try (JobClient client = new JobClient(bootstrap, registry); JobClient.ResultStream results = client.openResults();
             AttemptTimes times = new AttemptTimes(bootstrap, client.topics())) {
            run(client, results, "warm-up"); // first registrations and class loading are not what we measure
            dockerRun();
            for (int i = 0; i < rounds; i++) {
                String[] jobId = new String[1];
                flash.add(run(client, results, "hello-" + i, jobId));
                executor.add(times.placedToExit(jobId[0], Duration.ofSeconds(10)));
                docker.add(dockerRun());
                System.err.printf("round %d/%d: flash %.0f ms (executor %.0f ms), docker run %.0f ms%n", i + 1, rounds, flash.get(i),
                        executor.get(i), docker.get(i));
            }
        }
        Files.createDirectories(csv.toAbsolutePath().getParent());
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(csv))) {
            out.println("round,flash_ms,executor_ms,docker_run_ms");
            for (int i = 0; i < rounds; i++) {
                out.printf(Locale.ROOT, "%d,%.1f,%.1f,%.1f%n", i, flash.get(i), executor.get(i), docker.get(i));
            }
        }
        System.out.printf("%-28s %8s %8s %8s%n", "hello job (" + rounds + " rounds)", "p50 ms", "p95 ms", "max ms");
        print("flash submit -> result", flash);
        print("executor: placed -> exit", executor);
        print("docker run --rm (baseline)", docker);
        System.out.printf(Locale.ROOT, "ratio flash / docker run: p50 %.2f, p95 %.2f%n",
                percentile(flash, 50) / percentile(docker, 50), percentile(flash, 95) / percentile(docker, 95));
        System.out.printf(Locale.ROOT, "ratio executor / docker run: p50 %.2f, p95 %.2f   csv: %s%n",
                percentile(executor, 50) / percentile(docker, 50), percentile(executor, 95) / percentile(docker, 95), csv);
    }

    private static double run(JobClient client, JobClient.ResultStream results, String name) throws Exception {
        return run(client, results, name, new String[1]);
    }

    private static double run(JobClient client, JobClient.ResultStream results, String name, String[] jobIdOut) throws Exception {
        JobSubmission job = JobSubmission.newBuilder().setSubmissionId(name + "-" + UUID.randomUUID()).setName(name).setOwner("bench")
                .setTasks(List.of(TaskSpec.newBuilder().setName("hello").setImage("flash/shell:1").setShell("echo hello")
                        .setResources(ResourceRequest.newBuilder().setCpu(0.5).setMemory("64Mi").build()).build()))
                .build();
        long start = System.nanoTime();
        String jobId = client.submit(job);
        jobIdOut[0] = jobId;
        JobResult result = results.await(jobId, Duration.ofSeconds(60))
                .orElseThrow(() -> new IllegalStateException("no result for " + name + " within 60 s"));
        double ms = (System.nanoTime() - start) / 1e6;
        if (result.getState() != JobState.SUCCEEDED) {
            throw new IllegalStateException(name + " did not succeed: " + result);
        }
        return ms;
    }

    private static double dockerRun() throws IOException, InterruptedException {
        long start = System.nanoTime();
        Process p = new ProcessBuilder("docker", "run", "--rm", "--cpus", "0.5", "-m", "64m", "--network", "none",
                "flash/shell:1", "/bin/sh", "-c", "echo hello").redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        if (p.waitFor() != 0) throw new IllegalStateException("docker run failed");
        return (System.nanoTime() - start) / 1e6;
    }

    private static void print(String label, List<Double> values) {
        System.out.printf(Locale.ROOT, "%-28s %8.0f %8.0f %8.0f%n", label, percentile(values, 50), percentile(values, 95),
                Collections.max(values));
    }

    private static double percentile(List<Double> values, int p) {
        return Percentiles.of(values, p);
    }
}
