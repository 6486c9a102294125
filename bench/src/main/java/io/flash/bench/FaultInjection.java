package io.flash.bench;

import io.flash.common.client.JobClient;
import io.flash.common.client.TopicTail;
import io.flash.common.events.AttemptTimeline;
import io.flash.common.ids.JobIds;
import io.flash.schema.*;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.*;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * The fault matrix of issue 15 on a running platform (bench/run-faults.sh starts it): workload A —
 * 120 jobs, 20 × (50-shard scatter + gather) and 100 one-task jobs, 1,120 units on simulated nodes
 * — once without a fault and once per fault, each fault injected at 40 % of the units done. Per run:
 * jobs final, units succeeded, units with two successes, units two of whose attempts overlapped
 * (from the nodes' own reports), attempts moved off a framework, the longest stall in successes
 * after the fault, and the makespan, against the no-fault run of the same invocation.
 */
public final class FaultInjection {

    private static final int SCATTERS = 20, SHARDS = 50, SINGLES = 100;
    private static final int UNITS = SCATTERS * (SHARDS + 1) + SINGLES;
    private static final Duration STALLED_AFTER = Duration.ofSeconds(240);

    private final Path home = Path.of(System.getenv().getOrDefault("FLASH_HOME", ".")).toAbsolutePath();
    private final Path data = Path.of(System.getenv("FLASH_DATA_DIR"));
    private final JobClient client;
    private final TopicTail<TaskEvent> events;
    private final TopicTail<AttemptEvent> nodeEvents;
    private final TopicTail<JobResult> results;

    private FaultInjection(String bootstrap, String registry) {
        client = new JobClient(bootstrap, registry);
        events = new TopicTail<>(bootstrap, client.topics().tasksEvents);
        nodeEvents = new TopicTail<>(bootstrap, client.topics().frameworkNodeEvents("ecs"));
        results = new TopicTail<>(bootstrap, client.topics().jobsResults);
    }

    record Row(String fault, int jobsFinal, int unitsSucceeded, int doubleSuccesses, int overlaps, int moved,
               long stallMillis, long makespanMillis, boolean stalled) {
    }

    public static void main(String[] args) throws Exception {
        List<String> faults = args.length > 1 ? List.of(args[1].split(","))
                : List.of("none", "kill-dag-planner", "kill-dispatcher", "kill-framework-ecs", "kill-ingest-while-publishing",
                "kill-dag-planner+framework-ecs", "kill-executor", "sigstop-framework-ecs-40s", "kill-broker");
        Path csv = Path.of(args.length > 0 ? args[0] : "bench/target/faults.csv");
        FaultInjection bench = new FaultInjection(System.getenv("FLASH_BOOTSTRAP_SERVERS"), System.getenv("FLASH_REGISTRY_URL"));
        List<Row> rows = new ArrayList<>();
        for (String fault : faults) {
            Row row = bench.run(fault);
            rows.add(row);
            System.out.println(format(row, rows.get(0)));
        }
        Files.createDirectories(csv.getParent());
        StringBuilder out = new StringBuilder("fault,jobs_final,units_succeeded,double_successes,overlaps,moved,stall_ms,makespan_ms,stalled\n");
        for (Row r : rows) {
            out.append(String.join(",", r.fault(), "" + r.jobsFinal(), "" + r.unitsSucceeded(), "" + r.doubleSuccesses(),
                    "" + r.overlaps(), "" + r.moved(), "" + r.stallMillis(), "" + r.makespanMillis(), "" + r.stalled())).append('\n');
        }
        Files.writeString(csv, out);
        System.out.println("\n| fault | jobs final | units succeeded | double successes | overlapping attempts | moved off a framework | longest stall after the fault | makespan (× no fault) |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        for (Row r : rows) System.out.println(format(r, rows.get(0)));
        System.out.println("\nCSV: " + csv);
        System.exit(rows.stream().allMatch(r -> !r.stalled() && r.doubleSuccesses() == 0 && r.overlaps() == 0) ? 0 : 1);
    }

    private static String format(Row r, Row baseline) {
        return String.format(Locale.ROOT, "| %s | %d/%d%s | %d/%d | %d | %d | %d | %.1f s | %.1f s (%.2f×) |", r.fault(), r.jobsFinal(),
                SCATTERS + SINGLES, r.stalled() ? ", STALLED" : "", r.unitsSucceeded(), UNITS, r.doubleSuccesses(), r.overlaps(), r.moved(),
                r.stallMillis() / 1000.0, r.makespanMillis() / 1000.0, (double) r.makespanMillis() / Math.max(1, baseline.makespanMillis()));
    }

    private Row run(String fault) throws Exception {
        String tag = fault + "-" + UUID.randomUUID().toString().substring(0, 8);
        List<JobSubmission> jobs = workload(tag);
        Set<String> jobIds = jobs.stream().map(j -> JobIds.forSubmission(j.getSubmissionId())).collect(Collectors.toSet());
        Predicate<String> ours = jobIds::contains;
        long start = System.currentTimeMillis();
        long injectedAt;
        if (fault.equals("kill-ingest-while-publishing")) {
            for (int i = 0; i < jobs.size(); i++) {
                if (i == jobs.size() * 2 / 5) inject("kill-ingest", ours);
                client.submit(jobs.get(i));
                Thread.sleep(20);
            }
            injectedAt = start;
        } else {
            for (JobSubmission job : jobs) client.submit(job);
            while (succeeded(ours) < UNITS * 2 / 5 && finals(ours) < jobs.size() && System.currentTimeMillis() - start < 300_000) Thread.sleep(50);
            injectedAt = System.currentTimeMillis();
            if (!fault.equals("none")) inject(fault, ours);
        }
        long lastProgress = System.currentTimeMillis();
        int done = succeeded(ours);
        boolean stalled = false;
        while (finals(ours) < jobs.size()) {
            Thread.sleep(200);
            int now = succeeded(ours);
            if (now > done) {
                done = now;
                lastProgress = System.currentTimeMillis();
            } else if (System.currentTimeMillis() - lastProgress > STALLED_AFTER.toMillis()) {
                stalled = true;
                break;
            }
        }
        long makespan = System.currentTimeMillis() - start;
        Thread.sleep(3_000); // late reports of a stray attempt would arrive by now
        List<TaskEvent> mine = events.values(e -> ours.test(e.getJobId()));
        Map<String, Long> successes = mine.stream().filter(e -> e.getType() == TaskEventType.SUCCEEDED)
                .collect(Collectors.groupingBy(TaskEvent::getTaskId, Collectors.counting()));
        AttemptTimeline timeline = new AttemptTimeline(nodeEvents.values(e -> ours.test(e.getJobId())), mine);
        int moved = (int) mine.stream().filter(e -> e.getFailureClass() == FailureClass.FRAMEWORK_LOST).count();
        List<Long> successTimes = events.seen(e -> ours.test(e.getJobId()) && e.getType() == TaskEventType.SUCCEEDED).stream()
                .map(TopicTail.Seen::at).filter(t -> t >= injectedAt).sorted().collect(Collectors.toCollection(ArrayList::new));
        successTimes.add(0, injectedAt);
        long stall = 0;
        for (int i = 1; i < successTimes.size(); i++) stall = Math.max(stall, successTimes.get(i) - successTimes.get(i - 1));
        return new Row(fault, finals(ours), successes.size(), (int) successes.values().stream().filter(n -> n > 1).count(),
                timeline.overlaps().size(), moved, stall, makespan, stalled);
    }

    private List<JobSubmission> workload(String tag) {
        List<JobSubmission> jobs = new ArrayList<>();
        for (int i = 0; i < SCATTERS; i++) {
            TaskSpec shards = task("shards");
            shards.setScatter(ScatterSpec.newBuilder().setFrom(0L).setTo((long) SHARDS).setShardSize(1).build());
            TaskSpec gather = task("gather");
            gather.setDependsOn(List.of("shards"));
            jobs.add(job(tag + "-scatter-" + i, shards, gather));
        }
        for (int i = 0; i < SINGLES; i++) jobs.add(job(tag + "-single-" + i, task("one")));
        return jobs;
    }

    private static TaskSpec task(String name) {
        return TaskSpec.newBuilder().setName(name).setImage("flash/shell:1").setShell("true")
                .setResources(ResourceRequest.newBuilder().setCpu(0.5).setMemory("64Mi").build()).build();
    }

    private static JobSubmission job(String name, TaskSpec... tasks) {
        return JobSubmission.newBuilder().setSubmissionId(name).setName(name).setOwner("bench")
                .setTasks(new ArrayList<>(List.of(tasks))).build();
    }

    private void inject(String fault, Predicate<String> ours) throws Exception {
        switch (fault) {
            case "kill-dag-planner", "kill-dispatcher", "kill-framework-ecs", "kill-ingest", "kill-executor" -> {
                String service = fault.substring("kill-".length());
                kill(service);
                start(service);
            }
            case "kill-dag-planner+framework-ecs" -> {
                kill("dag-planner");
                kill("framework-ecs");
                start("dag-planner");
                start("framework-ecs");
            }
            case "sigstop-framework-ecs-40s" -> {
                signal("STOP", pid("framework-ecs"));
                Thread.sleep(40_000);
                signal("CONT", pid("framework-ecs"));
            }
            case "kill-broker" -> {
                kill("kafka"); // gone before start.sh looks, or it would find it "already running"
                command("bash", home.resolve("infra/kafka/start.sh").toString());
            }
            default -> throw new IllegalArgumentException("unknown fault " + fault);
        }
    }

    private void kill(String service) throws Exception {
        String pid = pid(service);
        signal("KILL", pid);
        while (ProcessHandle.of(Long.parseLong(pid)).map(ProcessHandle::isAlive).orElse(false)) Thread.sleep(20);
    }

    private void start(String service) throws Exception {
        command(home.resolve("bin/flash").toString(), "start", service);
    }

    private String pid(String name) throws IOException {
        return Files.readString(data.resolve(name + ".pid")).trim();
    }

    private static void signal(String signal, String pid) throws Exception {
        command("kill", "-" + signal, pid);
    }

    private static void command(String... argv) throws Exception {
        Process p = new ProcessBuilder(argv).inheritIO().start();
        if (p.waitFor() != 0) throw new IllegalStateException(String.join(" ", argv) + " failed");
    }

    private int succeeded(Predicate<String> ours) {
        return (int) events.values(e -> ours.test(e.getJobId()) && e.getType() == TaskEventType.SUCCEEDED).stream()
                .map(TaskEvent::getTaskId).distinct().count();
    }

    private int finals(Predicate<String> ours) {
        return (int) results.values(r -> ours.test(r.getJobId())).stream().map(JobResult::getJobId).distinct().count();
    }
}
