package io.flash.planner.topology;

import io.flash.common.topics.FlashTopics;
import io.flash.common.topics.Topic;
import io.flash.planner.dag.RetryPolicy;
import io.flash.schema.*;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.state.Stores;

import java.time.Clock;
import java.time.Duration;

/**
 * dag-planner: accepted jobs, task events and job commands (all keyed by job id, so
 * co-partitioned) meet in one processor. Its state, split so no record grows with a job:
 * {@link #JOBS_STORE} job id → JobProgress; {@link #SPECS_STORE} and {@link #TASKS_STORE}
 * "jobId/task" → TaskDefinition and LogicalTask; {@link #UNITS_STORE} unit id (task or shard id) →
 * TaskSummary; {@link #DELAYED_STORE} "dueAt/attemptId" → retries waiting out their backoff.
 */
public final class PlannerTopology {

    public static final String JOBS_STORE = "planner-jobs";
    public static final String SPECS_STORE = "planner-specs";
    public static final String TASKS_STORE = "planner-tasks";
    public static final String UNITS_STORE = "planner-units";
    public static final String DELAYED_STORE = "planner-delayed";

    static final String PLANNER = "planner";
    static final String READY_SINK = "tasks-ready";
    static final String STATUS_SINK = "jobs-status";
    static final String UNIT_STATUS_SINK = "tasks-status";
    static final String RESULT_SINK = "jobs-results";

    private PlannerTopology() {
    }

    public static Topology build(FlashTopics topics, RetryPolicy retryPolicy, Duration tick, Clock clock) {
        Topology topology = new Topology();
        String[] sources = {"accepted", "task-events", "commands"};
        source(topology, sources[0], topics.jobsAccepted);
        source(topology, sources[1], topics.tasksEvents);
        source(topology, sources[2], topics.jobsCommands);
        topology.addProcessor(PLANNER, () -> new PlannerProcessor(retryPolicy, tick, clock), sources);
        store(topology, JOBS_STORE, topics, JobProgress.class);
        store(topology, SPECS_STORE, topics, TaskDefinition.class);
        store(topology, TASKS_STORE, topics, LogicalTask.class);
        store(topology, UNITS_STORE, topics, TaskSummary.class);
        store(topology, DELAYED_STORE, topics, DelayedAttempt.class);
        sink(topology, READY_SINK, topics.tasksReady);
        sink(topology, STATUS_SINK, topics.jobsStatus);
        sink(topology, UNIT_STATUS_SINK, topics.tasksStatus);
        sink(topology, RESULT_SINK, topics.jobsResults);
        return topology;
    }

    private static void source(Topology topology, String name, Topic<String, ?> topic) {
        topology.addSource(name, topic.keySerde().deserializer(), topic.valueSerde().deserializer(), topic.name());
    }

    private static <V extends SpecificRecord> void store(Topology topology, String name, FlashTopics topics, Class<V> type) {
        topology.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(name), Serdes.String(),
                topics.storeSerde(type)), PLANNER);
    }

    private static <V> void sink(Topology topology, String name, Topic<String, V> topic) {
        topology.addSink(name, topic.name(), topic.keySerde().serializer(), topic.valueSerde().serializer(), PLANNER);
    }
}
