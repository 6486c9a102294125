package io.flash.bench;

import io.flash.common.client.JobClient;
import io.flash.schema.*;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * N short containers (default 200) through a running Flash — one scattered task of N shards of
 * `true` — against the same containers launched by this program with `docker run --rm` at the same
 * concurrency (how many the node runs at once: its cpu divided by the task's), same run.
 *
 * Usage: ContainerThroughput [containers] [node cpus]; FLASH_BOOTSTRAP_SERVERS / FLASH_REGISTRY_URL select the platform.
 */
public final class ContainerThroughput {

    private static final double TASK_CPU = 0.25;

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        double nodeCpus = args.length > 1 ? Double.parseDouble(args[1]) : Runtime.getRuntime().availableProcessors();
        int concurrency = (int) Math.floor(nodeCpus / TASK_CPU);
        String bootstrap = Optional.ofNullable(System.getenv("FLASH_BOOTSTRAP_SERVERS")).orElse("127.0.0.1:9092");
        String registry = Optional.ofNullable(System.getenv("FLASH_REGISTRY_URL")).orElse("http://127.0.0.1:8081");
        TaskSpec task = TaskSpec.newBuilder().setName("short").setImage("flash/shell:1").setShell("true")
                .setResources(ResourceRequest.newBuilder().setCpu(TASK_CPU).setMemory("32Mi").build())
                .setScatter(ScatterSpec.newBuilder().setFrom(0L).setTo((long) n).setShardSize(1).build()).build();
        double flash;
        try (JobClient client = new JobClient(bootstrap, registry); JobClient.ResultStream results = client.openResults()) {
            JobSubmission job = JobSubmission.newBuilder().setSubmissionId("containers-" + UUID.randomUUID()).setName("containers")
                    .setOwner("bench").setTasks(List.of(task)).build();
            long t0 = System.nanoTime();
            String jobId = client.submit(job);
            JobResult result = results.await(jobId, Duration.ofMinutes(30)).orElseThrow();
            flash = (System.nanoTime() - t0) / 1e9;
            if (result.getState() != JobState.SUCCEEDED) throw new IllegalStateException("flash run failed: " + result.getReason());
        }
        double direct = direct(n, concurrency);
        System.out.printf(Locale.ROOT, "%d containers, %d at a time: flash %.1f s (%.1f/s), docker run %.1f s (%.1f/s), ratio %.2f%n",
                n, concurrency, flash, n / flash, direct, n / direct, flash / direct);
    }

    /** {@code concurrency} workers, each launching `docker run --rm` for the next container until all have run. */
    static double direct(int n, int concurrency) throws Exception {
        TaskDefinition def = TaskDefinition.newBuilder().setName("short").setImage("flash/shell:1")
                .setCommand(List.of("/bin/sh", "-c", "true")).setResources(new Capacity(TASK_CPU, 32L << 20, 0L, 0)).build();
        Path root = Files.createTempDirectory("flash-containers");
        Path workspace = ExampleMakespan.open(root.resolve("workspace"));
        AtomicInteger next = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(concurrency);
        long t0 = System.nanoTime();
        List<Future<?>> workers = new ArrayList<>();
        for (int w = 0; w < concurrency; w++) {
            workers.add(pool.submit(() -> {
                for (int i = next.getAndIncrement(); i < n; i = next.getAndIncrement()) {
                    if (ExampleMakespan.dockerRun(def, workspace, ExampleMakespan.open(root.resolve("work-" + i))) != 0) {
                        throw new IllegalStateException("docker run failed");
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : workers) f.get();
        double seconds = (System.nanoTime() - t0) / 1e9;
        pool.shutdown();
        new ProcessBuilder("rm", "-rf", root.toString()).start().waitFor();
        return seconds;
    }
}
