package io.flash.bench;

import io.flash.common.resources.Resources;
import io.flash.common.serde.PlainAvroSerdes;
import io.flash.common.topics.FlashTopics;
import io.flash.ecs.core.ShardSettings;
import io.flash.ecs.core.placement.BinPacker;
import io.flash.ecs.core.placement.NodeIndex;
import io.flash.ecs.core.queue.FairShare;
import io.flash.ecs.kafka.EcsTopology;
import io.flash.schema.*;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.*;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TopologyTestDriver;

/**
 * Placement decisions per second of one framework-ecs scheduling shard holding 50 and 5,000 nodes
 * (all nodes in one shard: the worst case; more shards divide the nodes). Two measurements per
 * node count, in the same run:
 * <ul>
 *   <li>policy: the plain-Java placement path (fair-share pick + best fit over the candidates the
 *   node index offers + the allocation update), with churn so nodes never fill;</li>
 *   <li>topology: TaskDispatch in → RUN assignment out through the real framework-ecs topology on
 *   its RocksDB stores (TopologyTestDriver, no broker; it commits after every input record, which
 *   costs the same at both node counts).</li>
 * </ul>
 * Usage: SchedulerScale [decisions] [csv]
 */
public final class SchedulerScale {

    private static final int[] NODE_COUNTS = {50, 5_000};

    public static void main(String[] args) throws Exception {
        int decisions = args.length > 0 ? Integer.parseInt(args[0]) : 5_000;
        Path csv = Path.of(args.length > 1 ? args[1] : "bench/target/scheduler-scale.csv");
        FlashTopics topics = new FlashTopics(new PlainAvroSerdes());
        // Warm-up so the first measured configuration does not pay for JIT compilation.
        policy(500, decisions / 5);
        topology(topics, 500, decisions / 5);

        Map<Integer, double[]> results = new LinkedHashMap<>();
        for (int nodes : NODE_COUNTS) {
            results.put(nodes, new double[]{policy(nodes, decisions * 4), topology(topics, nodes, decisions)});
        }
        System.out.printf("%-8s %22s %26s%n", "nodes", "policy decisions/s", "topology placements/s");
        results.forEach((nodes, r) -> System.out.printf(Locale.ROOT, "%-8d %22.0f %26.0f%n", nodes, r[0], r[1]));
        double[] small = results.get(NODE_COUNTS[0]), large = results.get(NODE_COUNTS[1]);
        System.out.printf(Locale.ROOT, "ratio 5,000 / 50 nodes: policy %.3f, topology %.3f%n", large[0] / small[0], large[1] / small[1]);
        Files.createDirectories(csv.toAbsolutePath().getParent());
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(csv))) {
            out.println("nodes,policy_decisions_per_s,topology_placements_per_s");
            results.forEach((nodes, r) -> out.printf(Locale.ROOT, "%d,%.0f,%.0f%n", nodes, r[0], r[1]));
        }
    }

    private static TaskDefinition task(int i) {
        return TaskDefinition.newBuilder().setName("t" + i).setImage(i % 2 == 0 ? "bwa:1" : "samtools:1")
                .setCommand(List.of("/bin/sh", "-c", "true"))
                .setResources(new Capacity(0.5 + (i % 4) * 0.5, (256L + (i % 8) * 128) << 20, 0L, 0)).build();
    }

    private static NodeHeartbeat node(int i) {
        Capacity total = new Capacity(16.0, 64L << 30, 500L << 30, 0);
        return NodeHeartbeat.newBuilder().setNodeId(String.format("node-%05d", i)).setFrameworkId("ecs")
                .setTotal(total).setFree(total).setDiskType(i % 3 == 0 ? DiskType.SSD : DiskType.HDD).setNetwork(true)
                .setImages(i % 2 == 0 ? List.of("bwa:1") : List.of()).setAssignmentPartition(0).setStartedAt(0L).setSentAt(0L)
                .build();
    }

    /** Fair-share pick, best fit over all nodes, allocation; a placement is undone when a node pool is full. */
    static double policy(int nodeCount, int decisions) {
        List<NodeRecord> nodes = new ArrayList<>();
        for (int i = 0; i < nodeCount; i++) {
            nodes.add(NodeRecord.newBuilder().setHeartbeat(node(i)).setAllocated(Resources.zero())
                    .setPlacedAttempts(new ArrayList<>()).setLastSeenAt(0L).setLost(false).build());
        }
        Map<String, NodeRecord> byId = new HashMap<>();
        NodeIndex index = new NodeIndex();
        nodes.forEach(n -> {
            byId.put(n.getHeartbeat().getNodeId(), n);
            index.put(n);
        });
        BinPacker packer = new BinPacker();
        ArrayDeque<Object[]> placed = new ArrayDeque<>();
        List<TaskDispatch> queue = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            TaskReady ready = TaskReady.newBuilder().setJobId("j").setTaskId("j.t" + i).setAttemptId("j.t" + i + ".1").setAttempt(1)
                    .setOwner(i % 2 == 0 ? "alice" : "bob").setQueue("default").setTask(task(i)).setReadyAt(0L).build();
            queue.add(TaskDispatch.newBuilder().setFrameworkId("ecs").setShard(0).setReady(ready).setDispatchedAt(i).build());
        }
        Map<String, Capacity> held = new HashMap<>();
        long start = System.nanoTime();
        for (int d = 0; d < decisions; d++) {
            FairShare fairShare = new FairShare(new Capacity(16.0 * nodeCount, (64L << 30) * nodeCount, 0L, 0), held);
            TaskReady ready = fairShare.next(queue).orElseThrow().getReady();
            BinPacker.Choice choice = packer.place(ready.getTask(), index, nodes);
            while (choice.nodeId() == null) { // full: let the oldest tenth finish
                for (int k = 0; k < Math.max(1, placed.size() / 10); k++) {
                    Object[] p = placed.pollFirst();
                    NodeRecord n = (NodeRecord) p[0];
                    n.setAllocated(Resources.minus(n.getAllocated(), (Capacity) p[1]));
                    index.put(n);
                    held.computeIfPresent((String) p[2], (o, c) -> Resources.minus(c, (Capacity) p[1]));
                }
                choice = packer.place(ready.getTask(), index, nodes);
            }
            NodeRecord n = byId.get(choice.nodeId());
            n.setAllocated(Resources.plus(n.getAllocated(), ready.getTask().getResources()));
            index.put(n);
            held.merge(ready.getOwner(), ready.getTask().getResources(), Resources::plus);
            placed.addLast(new Object[]{n, ready.getTask().getResources(), ready.getOwner()});
        }
        return decisions / ((System.nanoTime() - start) / 1e9);
    }

    /** TaskDispatch records in, RUN assignments out, through the framework-ecs topology. */
    static double topology(FlashTopics topics, int nodeCount, int decisions) throws Exception {
        ShardSettings settings = new ShardSettings("ecs", Duration.ofHours(1), Duration.ofHours(1), 1_000_000);
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "scheduler-scale");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.STATE_DIR_CONFIG, Files.createTempDirectory("scheduler-scale").toString());
        try (TopologyTestDriver driver = new TopologyTestDriver(EcsTopology.build(topics, settings, Clock.systemUTC()), props)) {
            var nodes = driver.createInputTopic(topics.frameworkNodes("ecs").name(), Serdes.String().serializer(),
                    topics.frameworkNodes("ecs").valueSerde().serializer());
            var tasks = driver.createInputTopic(topics.frameworkTasks("ecs").name(), Serdes.String().serializer(),
                    topics.frameworkTasks("ecs").valueSerde().serializer());
            var assignments = driver.createOutputTopic(topics.frameworkAssignments("ecs").name(), Serdes.String().deserializer(),
                    Serdes.ByteArray().deserializer());
            var events = driver.createOutputTopic(topics.tasksEvents.name(), Serdes.String().deserializer(), Serdes.ByteArray().deserializer());
            for (int i = 0; i < nodeCount; i++) {
                NodeHeartbeat hb = node(i);
                nodes.pipeInput(hb.getNodeId(), hb);
            }
            List<TaskDispatch> dispatches = new ArrayList<>(decisions);
            for (int i = 0; i < decisions; i++) {
                TaskDefinition def = task(i);
                def.setResources(new Capacity(0.01, 8L << 20, 0L, 0)); // all fit: this measures deciding, not waiting
                TaskReady ready = TaskReady.newBuilder().setJobId("j").setTaskId("j.t" + i).setAttemptId("j.t" + i + ".1").setAttempt(1)
                        .setOwner(i % 2 == 0 ? "alice" : "bob").setQueue("default").setTask(def).setReadyAt(0L).build();
                dispatches.add(TaskDispatch.newBuilder().setFrameworkId("ecs").setShard(0).setReady(ready).setDispatchedAt(i).build());
            }
            long start = System.nanoTime();
            for (TaskDispatch d : dispatches) tasks.pipeInput(d.getReady().getTaskId(), d);
            double seconds = (System.nanoTime() - start) / 1e9;
            int placed = assignments.readRecordsToList().size();
            events.readRecordsToList();
            if (placed != decisions) throw new IllegalStateException("placed " + placed + " of " + decisions);
            return decisions / seconds;
        }
    }
}
