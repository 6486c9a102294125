package io.flash.bench;

import io.flash.common.serde.PlainAvroSerdes;
import io.flash.common.topics.FlashTopics;
import io.flash.planner.core.RetryPolicy;
import io.flash.planner.kafka.PlannerTopology;
import io.flash.schema.*;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.*;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.*;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.test.TestRecord;

/**
 * Planning a scattered job of N shards (default 100,000) with the dag-planner topology on its real
 * RocksDB stores (TopologyTestDriver, no broker): shards made ready per second, shards settled per
 * second, and the largest state record and message. Baseline in the same run: a topology that only
 * relays TaskReady records through one processor with one store write each. TopologyTestDriver
 * commits after every input record, so per-record rates (settling, relay) are measured over a
 * sample of {@value #SAMPLE} records; making the job's shards ready is one input record.
 *
 * Usage: PlannerScale [shards] [csv]
 */
public final class PlannerScale {

    static final int SAMPLE = 5_000;

    public static void main(String[] args) throws Exception {
        int shards = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        Path csv = Path.of(args.length > 1 ? args[1] : "bench/target/planner-scale.csv");
        FlashTopics topics = new FlashTopics(new PlainAvroSerdes());

        Result planner = runPlanner(topics, shards);
        double relay = runRelay(topics, shards);

        System.out.printf("%-40s %12s%n", "planner, " + shards + "-shard job", "per second");
        System.out.printf(Locale.ROOT, "%-40s %12.0f%n", "shards made ready (accept -> TaskReady)", planner.readyPerSecond);
        System.out.printf(Locale.ROOT, "%-40s %12.0f%n", "shards settled (SUCCEEDED -> result)", planner.settledPerSecond);
        System.out.printf(Locale.ROOT, "%-40s %12.0f%n", "relay baseline (one store write each)", relay);
        System.out.printf(Locale.ROOT, "ratio ready / relay: %.2f   settled / relay: %.2f%n", planner.readyPerSecond / relay,
                planner.settledPerSecond / relay);
        System.out.printf("largest state record: %d bytes (%s); largest message: %d bytes (%s)%n",
                planner.largestState, planner.largestStateWhere, planner.largestMessage, planner.largestMessageWhere);
        Files.createDirectories(csv.toAbsolutePath().getParent());
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(csv))) {
            out.println("shards,ready_per_s,settled_per_s,relay_per_s,largest_state_bytes,largest_message_bytes");
            out.printf(Locale.ROOT, "%d,%.0f,%.0f,%.0f,%d,%d%n", shards, planner.readyPerSecond, planner.settledPerSecond, relay,
                    planner.largestState, planner.largestMessage);
        }
    }

    record Result(double readyPerSecond, double settledPerSecond, long largestState, String largestStateWhere,
                  long largestMessage, String largestMessageWhere) {
    }

    static Result runPlanner(FlashTopics topics, int shards) throws Exception {
        Clock clock = Clock.systemUTC();
        try (TopologyTestDriver driver = new TopologyTestDriver(
                PlannerTopology.build(topics, RetryPolicy.defaults(), Duration.ofSeconds(1), clock), props("planner-scale"))) {
            var accepted = driver.createInputTopic(topics.jobsAccepted.name(), Serdes.String().serializer(), topics.jobsAccepted.valueSerde().serializer());
            var events = driver.createInputTopic(topics.tasksEvents.name(), Serdes.String().serializer(), topics.tasksEvents.valueSerde().serializer());
            var ready = driver.createOutputTopic(topics.tasksReadyBatches.name(), Serdes.String().deserializer(), Serdes.ByteArray().deserializer());
            var results = driver.createOutputTopic(topics.jobsResults.name(), Serdes.String().deserializer(), Serdes.ByteArray().deserializer());
            var unitStatus = driver.createOutputTopic(topics.tasksStatus.name(), Serdes.String().deserializer(), Serdes.ByteArray().deserializer());
            var jobStatus = driver.createOutputTopic(topics.jobsStatus.name(), Serdes.String().deserializer(), Serdes.ByteArray().deserializer());

            TaskDefinition compare = TaskDefinition.newBuilder().setName("compare").setImage("flash/shell:1")
                    .setCommand(List.of("/bin/sh", "-c", "mash dist ref.msh panel.$FLASH_SHARD_INDEX.msh"))
                    .setResources(new Capacity(0.25, 256L << 20, 0L, 0))
                    .setScatter(Scatter.newBuilder().setFrom(0L).setTo((long) shards).setShardSize(1).setShards(shards).build())
                    .build();
            TaskDefinition gather = TaskDefinition.newBuilder().setName("gather").setImage("flash/shell:1")
                    .setCommand(List.of("/bin/sh", "-c", "sort")).setResources(new Capacity(1.0, 1L << 30, 0L, 0))
                    .setDependsOn(List.of("compare")).build();
            JobAccepted job = JobAccepted.newBuilder().setJobId("job-scale").setSubmissionId("scale").setName("scale").setOwner("bench")
                    .setQueue("default").setTasks(List.of(compare, gather)).setAcceptedAt(clock.millis()).build();

            long start = System.nanoTime();
            accepted.pipeInput("job-scale", job);
            driver.advanceWallClockTime(PlannerTopology.DEFAULT_ENVELOPE_INTERVAL); // the envelope interval is over: sent
            List<TestRecord<String, byte[]>> readyRecords = ready.readRecordsToList();
            double readySeconds = (System.nanoTime() - start) / 1e9;
            TaskReadyDecoder decoder = new TaskReadyDecoder(topics);
            List<TaskReady> readyAttempts = readyRecords.stream().flatMap(r -> decoder.decode(r.value()).stream()).toList();
            if (readyAttempts.size() != shards) throw new IllegalStateException("expected " + shards + " ready, got " + readyAttempts.size());

            long largestMessage = 0;
            String largestMessageWhere = "";
            for (TestRecord<String, byte[]> r : readyRecords) {
                if (r.value().length > largestMessage) {
                    largestMessage = r.value().length;
                    largestMessageWhere = topics.tasksReadyBatches.name();
                }
            }
            List<TaskEvent> done = new ArrayList<>(shards);
            for (TaskReady t : readyAttempts) {
                done.add(TaskEvent.newBuilder().setJobId(t.getJobId()).setTaskId(t.getTaskId()).setAttemptId(t.getAttemptId())
                        .setType(TaskEventType.SUCCEEDED).setFrameworkId("ecs").setNodeId("n" + (t.getShardIndex() % 5000))
                        .setExitCode(0).setStdoutTail("ok\n").setAt(clock.millis()).build());
            }
            int sample = Math.min(SAMPLE, shards);
            start = System.nanoTime();
            for (TaskEvent e : done.subList(0, sample)) events.pipeInput("job-scale", e);
            double settleSeconds = (System.nanoTime() - start) / 1e9;

            for (var topic : List.of(unitStatus, jobStatus, results)) {
                for (TestRecord<String, byte[]> r : topic.readRecordsToList()) {
                    if (r.value().length > largestMessage) {
                        largestMessage = r.value().length;
                        largestMessageWhere = r.key() + " on " + (topic == results ? "results" : topic == jobStatus ? "jobs.status" : "tasks.status");
                    }
                }
            }
            long largestState = 0;
            String largestStateWhere = "";
            for (String store : List.of(PlannerTopology.WHOLE_JOBS_STORE, PlannerTopology.JOBS_STORE, PlannerTopology.SPECS_STORE, PlannerTopology.TASKS_STORE,
                    PlannerTopology.UNITS_STORE)) {
                KeyValueStore<String, Object> kv = driver.getKeyValueStore(store);
                try (KeyValueIterator<String, Object> it = kv.all()) {
                    while (it.hasNext()) {
                        var entry = it.next();
                        @SuppressWarnings("unchecked")
                        Class<SpecificRecord> type = (Class<SpecificRecord>) entry.value.getClass();
                        int size = topics.storeSerde(type).serializer().serialize("", (SpecificRecord) entry.value).length;
                        if (size > largestState) {
                            largestState = size;
                            largestStateWhere = store + "/" + entry.key;
                        }
                    }
                }
            }
            return new Result(shards / readySeconds, sample / settleSeconds, largestState, largestStateWhere, largestMessage, largestMessageWhere);
        }
    }

    /** Baseline: each TaskReady read, written to one store and forwarded — no planning. */
    static double runRelay(FlashTopics topics, int shards) throws Exception {
        Topology relay = new Topology();
        relay.addSource("in", Serdes.String().deserializer(), topics.tasksReady.valueSerde().deserializer(), "relay-in");
        relay.addProcessor("relay", () -> new Processor<String, TaskReady, String, TaskReady>() {
            private ProcessorContext<String, TaskReady> context;
            private KeyValueStore<String, TaskReady> store;

            @Override
            public void init(ProcessorContext<String, TaskReady> context) {
                this.context = context;
                this.store = context.getStateStore("relay-store");
            }

            @Override
            public void process(Record<String, TaskReady> record) {
                store.put(record.key(), record.value());
                context.forward(record);
            }
        }, "in");
        relay.addStateStore(Stores.keyValueStoreBuilder(
                Stores.persistentKeyValueStore("relay-store"), Serdes.String(),
                topics.storeSerde(TaskReady.class)), "relay");
        relay.addSink("out", "relay-out", Serdes.String().serializer(), topics.tasksReady.valueSerde().serializer(), "relay");
        try (TopologyTestDriver driver = new TopologyTestDriver(relay, props("relay"))) {
            var in = driver.createInputTopic("relay-in", Serdes.String().serializer(), topics.tasksReady.valueSerde().serializer());
            var out = driver.createOutputTopic("relay-out", Serdes.String().deserializer(), Serdes.ByteArray().deserializer());
            TaskDefinition def = TaskDefinition.newBuilder().setName("compare").setImage("flash/shell:1")
                    .setCommand(List.of("/bin/sh", "-c", "mash dist ref.msh panel.$FLASH_SHARD_INDEX.msh"))
                    .setResources(new Capacity(0.25, 256L << 20, 0L, 0)).build();
            List<TaskReady> records = new ArrayList<>(shards);
            for (int i = 0; i < Math.min(SAMPLE, shards); i++) {
                records.add(TaskReady.newBuilder().setJobId("job-scale").setTaskId("job-scale.compare.s" + i)
                        .setAttemptId("job-scale.compare.s" + i + ".1").setAttempt(1).setOwner("bench").setQueue("default")
                        .setTask(def).setShardIndex(i).setReadyAt(0L).build());
            }
            long start = System.nanoTime();
            for (TaskReady r : records) in.pipeInput(r.getTaskId(), r);
            double seconds = (System.nanoTime() - start) / 1e9;
            if (out.readRecordsToList().size() != records.size()) throw new IllegalStateException("relay lost records");
            return records.size() / seconds;
        }
    }

    private static Properties props(String name) throws Exception {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, name);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.STATE_DIR_CONFIG, Files.createTempDirectory(name).toString());
        return props;
    }

    /** The attempts of one of the planner's envelopes. */
    private static final class TaskReadyDecoder {
        private final Deserializer<TaskReadyBatch> deserializer;

        TaskReadyDecoder(FlashTopics topics) {
            this.deserializer = topics.tasksReadyBatches.valueSerde().deserializer();
        }

        List<TaskReady> decode(byte[] bytes) {
            return deserializer.deserialize("", bytes).getItems();
        }
    }
}
