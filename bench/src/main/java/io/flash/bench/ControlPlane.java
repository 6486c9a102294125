package io.flash.bench;

import io.flash.common.ids.JobIds;
import io.flash.common.serde.RegistryValueSerdes;
import io.flash.common.streams.WaitForRegistry;
import io.flash.common.topics.FlashTopics;
import io.flash.schema.*;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Control-plane throughput and latency: N trivial tasks published on the ingest topic, through all
 * five services, to simulated executor nodes (FLASH_SIM_NODES, run time 0), until every task has
 * STARTED and every job has its result. First at full load (everything published at once), then
 * paced at half the full-load rate; then the plain relay baseline ({@link Relay}) in the same run.
 *
 * Usage: ControlPlane TASKS single|scatter [csv] [label]; FLASH_BOOTSTRAP_SERVERS, FLASH_REGISTRY_URL
 * select the platform; FLASH_PIDS="dispatcher=PID,framework-ecs=PID" adds those processes' memory;
 * FLASH_CPU_PIDS="name=PID,..." adds each process's CPU time per task (this driver's is always shown);
 * FLASH_BENCH_FULL_ONLY=1 skips the half-load run and the relay (scale runs); FLASH_BENCH_HALF_RATE
 * paces the "half" run at that many tasks/s instead of half the full run's (to compare runs at one
 * rate); FLASH_BENCH_HOPS=1 has the half run read every other Flash topic too and print the time to
 * each hop (the reading costs the machine some CPU, so latency is a little worse with it).
 */
public final class ControlPlane {

    static final int SHARDS = 1000;
    /** submitted → accepted → ready → framework tasks → assignments → node events → task events (STARTED) → result */
    static final int HOPS_TO_START = 6, HOPS_TO_RESULT = 7;

    record Run(String load, int tasks, long firstSubmit, long lastStartSeen, long lastResultSeen,
               List<Long> submitToStartMs, int failedJobs, String memory, String hops, CpuTime.Usage cpu) {
        double startsPerSecond() {
            return tasks * 1000.0 / Math.max(1, lastStartSeen - firstSubmit);
        }

        double resultsPerSecond() {
            return tasks * 1000.0 / Math.max(1, lastResultSeen - firstSubmit);
        }
    }

    public static void main(String[] args) throws Exception {
        int tasks = Integer.parseInt(args[0]);
        boolean scatter = args.length > 1 && args[1].equals("scatter");
        Path csv = Path.of(args.length > 2 ? args[2] : "bench/target/control-plane.csv");
        String label = args.length > 3 ? args[3] : "";
        String bootstrap = Optional.ofNullable(System.getenv("FLASH_BOOTSTRAP_SERVERS")).orElse("127.0.0.1:9092");
        String registry = Optional.ofNullable(System.getenv("FLASH_REGISTRY_URL")).orElse("http://127.0.0.1:8081");
        ControlPlane bench = new ControlPlane(bootstrap, new FlashTopics(new RegistryValueSerdes(registry)), scatter);

        // A platform runs for days; its JIT warms in the first tens of thousands of tasks. The default
        // warm-up is short, so the full run also measures a cold platform (docs/performance.md, "The JIT").
        int warmUp = Optional.ofNullable(System.getenv("FLASH_BENCH_WARM_UP")).map(Integer::parseInt).orElse(scatter ? SHARDS : 500);
        bench.measure("warm-up", warmUp, 0, false);
        String records;
        Run full;
        try (TopicRecords counter = new TopicRecords(bootstrap)) {
            Map<String, Long> before = counter.snapshot();
            full = bench.measure("full", tasks, 0, false);
            Thread.sleep(2_000); // the last transactions' markers and changelog flushes
            records = TopicRecords.table(before, counter.snapshot(), full.tasks());
        }
        boolean fullOnly = "1".equals(System.getenv("FLASH_BENCH_FULL_ONLY"));
        double halfRate = Optional.ofNullable(System.getenv("FLASH_BENCH_HALF_RATE")).map(Double::parseDouble).orElse(full.resultsPerSecond() / 2);
        Run half = fullOnly ? null : bench.measure("half", tasks, halfRate, "1".equals(System.getenv("FLASH_BENCH_HOPS")));
        byte[] record = bench.serialized(bench.job("relay-size", 1));
        Relay.Result relay = fullOnly ? new Relay.Result(0, record.length, HOPS_TO_RESULT, 0, 1, 1)
                : Relay.run(bootstrap, tasks, record, HOPS_TO_START, HOPS_TO_RESULT, bench.partitions());
        List<Run> runs = fullOnly ? List.of(full) : List.of(full, half);

        String shape = scatter ? "jobs of " + SHARDS + "-shard scatters" : "jobs of 1 task";
        System.out.printf("%n%s — %,d tasks, %s%n", label.isEmpty() ? "control plane" : label, tasks, shape);
        System.out.printf("%-34s %10s %10s %8s %8s %8s %8s%n", "", "starts/s", "results/s", "p50 ms", "p95 ms", "p99 ms", "max ms");
        for (Run r : runs) {
            System.out.printf(Locale.ROOT, "%-34s %,10.0f %,10.0f %8.0f %8.0f %8.0f %8.0f%n",
                    "flash, " + r.load() + " load" + (r.load().equals("half") ? String.format(Locale.ROOT, " (%.0f/s)", halfRate) : ""),
                    r.startsPerSecond(), r.resultsPerSecond(), Percentiles.of(r.submitToStartMs(), 50), Percentiles.of(r.submitToStartMs(), 95),
                    Percentiles.of(r.submitToStartMs(), 99), Percentiles.of(r.submitToStartMs(), 100));
        }
        if (!fullOnly) {
            System.out.printf(Locale.ROOT, "%-34s %,10.0f %,10.0f   (%d hops to 'start', %d to 'result', %d-byte records)%n",
                    "plain relay (baseline)", relay.perSecondToStart(), relay.perSecondToEnd(), HOPS_TO_START, HOPS_TO_RESULT, record.length);
            System.out.printf(Locale.ROOT, "ratio flash / relay (full load): starts %.3f, results %.3f%n",
                    full.startsPerSecond() / relay.perSecondToStart(), full.resultsPerSecond() / relay.perSecondToEnd());
        }
        System.out.printf("%nfull load, %,d tasks: every record the broker took in while they ran (periodic heartbeats and node reports too)%n%s",
                full.tasks(), records);
        if (half != null && !half.hops().isEmpty()) System.out.printf("%nhalf load: where the time to start goes, hop by hop%n%s", half.hops());
        int failed = runs.stream().mapToInt(Run::failedJobs).sum();
        if (failed > 0) System.out.printf("jobs not SUCCEEDED: %d%n", failed);
        System.out.printf("%nCPU per task by process, and cores in use, while each run went (the machine's limit is its cores)%n%s",
                bench.cpu.table(runs.stream().map(Run::cpu).toList()));
        if (!full.memory().isEmpty()) System.out.printf("memory after the runs: %s%n", runs.get(runs.size() - 1).memory());

        Files.createDirectories(csv.toAbsolutePath().getParent());
        boolean fresh = !Files.exists(csv);
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(csv, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND))) {
            if (fresh) out.println("label,shape,tasks,load,starts_per_s,results_per_s,p50_ms,p95_ms,p99_ms,max_ms,relay_starts_per_s,relay_results_per_s,memory");
            for (Run r : runs) {
                out.printf(Locale.ROOT, "%s,%s,%d,%s,%.1f,%.1f,%.0f,%.0f,%.0f,%.0f,%.1f,%.1f,\"%s\"%n", label, scatter ? "scatter" : "single", tasks,
                        r.load(), r.startsPerSecond(), r.resultsPerSecond(), Percentiles.of(r.submitToStartMs(), 50),
                        Percentiles.of(r.submitToStartMs(), 95), Percentiles.of(r.submitToStartMs(), 99),
                        Percentiles.of(r.submitToStartMs(), 100), relay.perSecondToStart(), relay.perSecondToEnd(), r.memory());
            }
        }
        System.out.println("csv: " + csv);
    }

    private final String bootstrap;
    private final FlashTopics topics;
    private final boolean scatter;
    private final Serializer<JobSubmission> submissions;
    private final Deserializer<TaskEvent> events;
    private final Deserializer<JobResult> results;
    private final CpuTime cpu = new CpuTime(System.getenv("FLASH_CPU_PIDS"));

    private ControlPlane(String bootstrap, FlashTopics topics, boolean scatter) {
        this.bootstrap = bootstrap;
        this.topics = topics;
        this.scatter = scatter;
        this.submissions = topics.jobsSubmitted.valueSerde().serializer();
        // The registry, starting beside five services on two cores, once took more than 10 s to answer.
        this.events = new WaitForRegistry<>(topics.tasksEvents.valueSerde().deserializer());
        this.results = new WaitForRegistry<>(topics.jobsResults.valueSerde().deserializer());
    }

    private JobSubmission job(String name, int units) {
        TaskSpec.Builder task = TaskSpec.newBuilder().setName("t").setImage("flash/shell:1").setShell("true")
                .setResources(ResourceRequest.newBuilder().setCpu(0.25).setMemory("64Mi").build());
        if (units > 1) task.setScatter(ScatterSpec.newBuilder().setFrom(0L).setTo((long) units).setShardSize(1).build());
        return JobSubmission.newBuilder().setSubmissionId(name).setName(name).setOwner("bench").setTasks(List.of(task.build())).build();
    }

    private byte[] serialized(JobSubmission job) {
        return submissions.serialize(topics.jobsSubmitted.name(), job);
    }

    private int partitions() {
        try (KafkaConsumer<String, byte[]> c = consumer()) {
            return c.partitionsFor(topics.tasksEvents.name()).size();
        }
    }

    /**
     * Publishes {@code tasks} tasks (paced at {@code rate} tasks/s, 0 = at once) and follows them to
     * their results; with {@code traceHops} it also reads every other Flash topic to time each hop.
     */
    private Run measure(String load, int tasks, double rate, boolean traceHops) throws Exception {
        int unitsPerJob = scatter ? SHARDS : 1;
        int jobs = Math.max(1, tasks / unitsPerJob);
        String run = load + "-" + Long.toHexString(System.nanoTime());
        Map<String, Long> submittedAt = new ConcurrentHashMap<>();
        Map<String, Long> startedAt = new HashMap<>();
        List<Long> latencies = new ArrayList<>();
        Set<String> finished = new HashSet<>();
        int failed = 0;
        long lastStartSeen = 0, lastResultSeen = 0;
        try (KafkaConsumer<String, byte[]> watch = consumer(); KafkaProducer<String, byte[]> producer = producer()) {
            var parts = new ArrayList<TopicPartition>();
            for (String topic : List.of(topics.tasksEvents.name(), topics.jobsResults.name())) {
                watch.partitionsFor(topic).forEach(p -> parts.add(new TopicPartition(topic, p.partition())));
            }
            HopTrace hops = new HopTrace();
            if (traceHops) parts.addAll(HopTrace.partitions(watch, Set.of(topics.tasksEvents.name(), topics.jobsResults.name())));
            watch.assign(parts);
            watch.seekToEnd(parts);
            parts.forEach(watch::position);
            Thread submitter = new Thread(() -> {
                long t0 = System.nanoTime();
                for (int j = 0; j < jobs; j++) {
                    if (rate > 0) {
                        long due = t0 + (long) (j * unitsPerJob / rate * 1e9);
                        long wait = due - System.nanoTime();
                        if (wait > 0) LockSupport.parkNanos(wait);
                    }
                    String submission = run + "-" + j;
                    byte[] value = serialized(job(submission, unitsPerJob));
                    submittedAt.put(JobIds.forSubmission(submission), System.currentTimeMillis());
                    producer.send(new ProducerRecord<>(topics.jobsSubmitted.name(), submission, value));
                }
                producer.flush();
            }, "submitter");
            long firstSubmit = System.currentTimeMillis();
            CpuTime.Snapshot cpuBefore = cpu.snapshot();
            submitter.start();
            long lastProgress = System.nanoTime();
            long deadline = System.nanoTime() + Duration.ofSeconds(120 + tasks / 50).toNanos();
            while (finished.size() < jobs && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, byte[]> r : watch.poll(Duration.ofMillis(100))) {
                    if (traceHops) hops.see(r, System.currentTimeMillis());
                    if (!r.topic().equals(topics.tasksEvents.name()) && !r.topic().equals(topics.jobsResults.name())) continue;
                    Long submitted = submittedAt.get(r.key());
                    if (submitted == null) continue;
                    if (r.topic().equals(topics.tasksEvents.name())) {
                        TaskEvent e = events.deserialize(r.topic(), r.headers(), r.value());
                        if (e.getType() == TaskEventType.STARTED && startedAt.putIfAbsent(e.getJobId() + "/" + e.getTaskId(), e.getAt()) == null) {
                            latencies.add(e.getAt() - submitted);
                            lastStartSeen = System.currentTimeMillis();
                        }
                    } else if (finished.add(r.key())) {
                        JobResult result = results.deserialize(r.topic(), r.headers(), r.value());
                        if (result.getState() != JobState.SUCCEEDED) failed++;
                        lastResultSeen = System.currentTimeMillis();
                    }
                }
                if (System.nanoTime() - lastProgress > 5e9) {
                    lastProgress = System.nanoTime();
                    System.err.printf("%s load: submitted %,d/%,d jobs, %,d/%,d tasks started, %,d results%n", load,
                            submittedAt.size(), jobs, startedAt.size(), jobs * unitsPerJob, finished.size());
                }
            }
            CpuTime.Snapshot cpuAfter = cpu.snapshot();
            submitter.join();
            if (finished.size() < jobs) {
                throw new IllegalStateException(load + " load: only " + finished.size() + " of " + jobs + " results arrived in time ("
                        + startedAt.size() + " tasks started); see the services' logs");
            }
            System.err.printf("%s load: %,d tasks done in %.1f s%n", load, jobs * unitsPerJob, (lastResultSeen - firstSubmit) / 1000.0);
            return new Run(load, jobs * unitsPerJob, firstSubmit, lastStartSeen, lastResultSeen, latencies, failed, Memory.of(System.getenv("FLASH_PIDS")),
                    traceHops ? hops.table(submittedAt) : "", new CpuTime.Usage(load, jobs * unitsPerJob, cpuBefore, cpuAfter));
        }
    }

    private KafkaConsumer<String, byte[]> consumer() {
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
        return new KafkaConsumer<>(c, new StringDeserializer(), new ByteArrayDeserializer());
    }

    private KafkaProducer<String, byte[]> producer() {
        return Relay.producer(bootstrap); // the same producer settings as the baseline's loops
    }
}
