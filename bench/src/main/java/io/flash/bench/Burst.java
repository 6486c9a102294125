package io.flash.bench;

import io.flash.common.client.JobClient;
import io.flash.common.client.TopicTail;
import io.flash.common.ids.JobIds;
import io.flash.schema.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One run of the burst benchmark (bench/run-autoscaler-burst.sh): jobs of mixed shapes in waves
 * against a platform already up, while every node heartbeat is read from the framework's nodes
 * topic — so node-hours and what the nodes cost (their class's price per hour, on demand or spot,
 * from the framework's catalogue) are counted from the nodes themselves. Appends one CSV row.
 * Args: label jobs waves waveGapSeconds spot(allowed|never) csv
 */
public final class Burst {

    private static final long HEARTBEAT_MS = 2_000;
    private static final double[][] SHAPES = {{0.5, 512}, {1, 1024}, {2, 3072}}; // cpu, MiB

    private record Seen(long first, long last, String nodeClass, boolean spot, double cpu) {
    }

    public static void main(String[] args) throws Exception {
        String label = args[0], spot = args[4];
        int jobs = Integer.parseInt(args[1]), waves = Integer.parseInt(args[2]);
        long gapMs = Long.parseLong(args[3]) * 1000;
        String bootstrap = System.getenv().getOrDefault("FLASH_BOOTSTRAP_SERVERS", "127.0.0.1:9092");
        String registry = System.getenv().getOrDefault("FLASH_REGISTRY_URL", "http://127.0.0.1:8081");
        Map<String, Seen> nodes = new ConcurrentHashMap<>();
        try (JobClient client = new JobClient(bootstrap, registry);
             TopicTail<NodeHeartbeat> heartbeats = new TopicTail<>(bootstrap, client.topics().frameworkNodes("ecs"));
             TopicTail<FrameworkHeartbeat> frameworks = new TopicTail<>(bootstrap, client.topics().frameworkHeartbeats);
             TopicTail<TaskEvent> events = new TopicTail<>(bootstrap, client.topics().tasksEvents);
             JobClient.ResultStream results = client.openResults()) {
            Thread.sleep(3_000); // the tails are at the end of their topics
            long start = System.currentTimeMillis();
            Set<String> before = new HashSet<>();
            heartbeats.values(h -> start - h.getSentAt() < 3 * HEARTBEAT_MS).forEach(h -> before.add(h.getNodeId()));
            List<String> ids = new ArrayList<>();
            Random random = new Random(42);
            for (int wave = 0; wave < waves; wave++) {
                long at = start + wave * gapMs;
                while (System.currentTimeMillis() < at) Thread.sleep(100);
                for (int j = 0; j < jobs / waves; j++) {
                    double[] shape = SHAPES[random.nextInt(SHAPES.length)];
                    JobSubmission job = job(label + "-w" + wave + "-" + j, shape[0], (long) shape[1], spot);
                    client.submit(job);
                    ids.add(JobIds.forSubmission(job.getSubmissionId()));
                }
                System.out.printf("%s: wave %d of %d submitted (%d jobs)%n", label, wave + 1, waves, jobs / waves);
            }
            List<JobResult> done = new ArrayList<>();
            long lastResult = start;
            long deadline = System.currentTimeMillis() + Duration.ofMinutes(15).toMillis(); // for the whole run, not per job
            for (String id : ids) {
                Optional<JobResult> r = results.await(id, Duration.ofMillis(Math.max(1, deadline - System.currentTimeMillis())));
                if (r.isPresent()) {
                    done.add(r.get());
                    lastResult = Math.max(lastResult, System.currentTimeMillis());
                }
                if (done.size() % 50 == 0) System.out.printf("%s: %d of %d jobs final%n", label, done.size(), ids.size());
            }
            // Back to zero: no heartbeat from any node for three intervals (a fixed fleet never gets there: 3 min at most).
            long zeroDeadline = System.currentTimeMillis() + 180_000;
            while (System.currentTimeMillis() < zeroDeadline) {
                long now = System.currentTimeMillis();
                if (heartbeats.values(h -> now - h.getSentAt() < 3 * HEARTBEAT_MS).isEmpty()) break;
                if (label.startsWith("fixed")) break;
                Thread.sleep(1_000);
            }
            for (NodeHeartbeat h : heartbeats.values(h -> h.getSentAt() >= start)) {
                nodes.merge(h.getNodeId(), new Seen(h.getSentAt(), h.getSentAt(), h.getNodeClass(), h.getSpot(), h.getTotal().getCpu()),
                        (a, b) -> new Seen(Math.min(a.first(), b.first()), Math.max(a.last(), b.last()), a.nodeClass(), a.spot(), a.cpu()));
            }
            Map<String, NodeClass> catalogue = new HashMap<>();
            for (FrameworkHeartbeat f : frameworks.values(f -> f.getFrameworkId().equals("ecs"))) {
                for (NodeClass c : f.getNodeClasses()) catalogue.put(c.getName(), c);
            }
            report(label, args[5], start, lastResult, before, nodes, catalogue, done, ids.size(), events);
        }
    }

    private static JobSubmission job(String name, double cpu, long memoryMib, String spot) {
        TaskSpec task = TaskSpec.newBuilder().setName("t").setImage("flash/shell:1").setShell("true")
                .setResources(ResourceRequest.newBuilder().setCpu(cpu).setMemory(memoryMib + "Mi").build())
                .setSpot("never".equals(spot) ? "never" : null).build();
        return JobSubmission.newBuilder().setSubmissionId(name + "-" + UUID.randomUUID()).setName(name).setOwner("bench")
                .setTasks(List.of(task)).build();
    }

    private static void report(String label, String csv, long start, long lastResult, Set<String> before, Map<String, Seen> nodes,
                               Map<String, NodeClass> catalogue, List<JobResult> done, int submitted, TopicTail<TaskEvent> events)
            throws IOException {
        double nodeSeconds = 0, billed = 0, peakCpu = 0;
        long firstNew = Long.MAX_VALUE, lastSeen = 0;
        for (Seen s : nodes.values()) {
            double seconds = (s.last() - s.first() + HEARTBEAT_MS) / 1000.0;
            nodeSeconds += seconds;
            NodeClass c = s.nodeClass() == null ? null : catalogue.get(s.nodeClass());
            if (c != null) billed += seconds / 3600 * (s.spot() ? c.getSpotPerHour() : c.getOnDemandPerHour());
            lastSeen = Math.max(lastSeen, s.last());
        }
        for (var e : nodes.entrySet()) if (!before.contains(e.getKey())) firstNew = Math.min(firstNew, e.getValue().first());
        // Peak: the most cpu alive at once, sampled every second.
        for (long t = start; t <= lastSeen; t += 1000) {
            double cpu = 0;
            for (Seen s : nodes.values()) if (s.first() <= t && t <= s.last() + HEARTBEAT_MS) cpu += s.cpu();
            peakCpu = Math.max(peakCpu, cpu);
        }
        long succeeded = done.stream().filter(r -> r.getState() == JobState.SUCCEEDED).count();
        int userRetries = 0, spotLosses = 0;
        double userCost = 0, platformCost = 0;
        for (JobResult r : done) {
            userCost += r.getUserCost();
            platformCost += r.getPlatformCost();
            for (TaskSummary t : r.getTasks()) {
                userRetries += t.getUserFailures();
                spotLosses += t.getSpotLosses();
            }
        }
        Set<String> jobIds = new HashSet<>();
        done.forEach(r -> jobIds.add(r.getJobId()));
        Map<String, Integer> successes = new HashMap<>();
        for (TaskEvent e : events.values(e -> e.getType() == TaskEventType.SUCCEEDED && jobIds.contains(e.getJobId()))) {
            successes.merge(e.getTaskId(), 1, Integer::sum);
        }
        long doubles = successes.values().stream().filter(n -> n > 1).count();
        double makespan = (lastResult - start) / 1000.0;
        double toNode = firstNew == Long.MAX_VALUE ? 0 : (firstNew - start) / 1000.0;
        double toZero = label.startsWith("fixed") ? Double.NaN : Math.max(0, (lastSeen + HEARTBEAT_MS - lastResult) / 1000.0);
        String row = String.format(Locale.ROOT, "%s,%d,%d,%d,%.1f,%.4f,%.4f,%.1f,%d,%.1f,%.1f,%d,%d,%d,%.6f,%.6f%n", label, submitted,
                done.size(), succeeded, makespan, nodeSeconds / 3600, billed, peakCpu, nodes.size(), toNode, toZero,
                submitted - succeeded, doubles, userRetries, userCost, platformCost);
        Path out = Path.of(csv);
        if (!Files.exists(out)) Files.writeString(out, "run,jobs,final,succeeded,makespan_s,node_hours,node_cost,peak_cpu,nodes,"
                + "first_node_s,to_zero_s,units_lost,double_successes,user_retries,attempt_user_cost,attempt_platform_cost\n");
        Files.writeString(out, row, StandardOpenOption.APPEND);
        System.out.printf("%s: %d/%d jobs final, %d succeeded, makespan %.1f s, %.4f node-hours costing %.4f, %d nodes (peak %.1f cpu), "
                        + "first node %.1f s after the first submit, zero nodes %.1f s after the last result, spot losses %d, user retries %d, "
                        + "double successes %d%n", label, done.size(), submitted, succeeded, makespan, nodeSeconds / 3600, billed, nodes.size(),
                peakCpu, toNode, toZero, spotLosses, userRetries, doubles);
    }
}
