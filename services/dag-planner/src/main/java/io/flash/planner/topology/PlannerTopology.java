package io.flash.planner.topology;

import io.flash.common.streams.GlobalTables;
import io.flash.common.topics.FlashTopics;
import io.flash.common.topics.Topic;
import io.flash.planner.dag.RetryPolicy;
import io.flash.schema.*;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serdes;
import io.flash.planner.dag.ResourceEstimator;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
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
    /** Global: signature → ResourceEstimate, from the compacted estimates topic. */
    public static final String ESTIMATES_STORE = "planner-estimates";
    /** signature → ResourceEstimate, kept by the estimator that writes that topic. */
    public static final String ESTIMATOR_STORE = "planner-estimator";

    static final String PLANNER = "planner";
    static final String READY_SINK = "tasks-ready";
    static final String STATUS_SINK = "jobs-status";
    static final String UNIT_STATUS_SINK = "tasks-status";
    static final String RESULT_SINK = "jobs-results";
    static final String OBSERVATION_SINK = "tasks-observations";

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
        sink(topology, OBSERVATION_SINK, topics.tasksObservations);
        addEstimator(topology, topics);
        return topology;
    }

    /**
     * Observations are re-keyed by signature (the planner publishes them keyed so), folded into
     * estimates, and every planner task reads all estimates through a global store.
     */
    private static void addEstimator(Topology topology, FlashTopics topics) {
        ResourceEstimator estimator = ResourceEstimator.defaults();
        topology.addSource("observations", topics.tasksObservations.keySerde().deserializer(),
                topics.tasksObservations.valueSerde().deserializer(), topics.tasksObservations.name());
        topology.addProcessor("estimator", () -> new Processor<String, ResourceObservation, String, ResourceEstimate>() {
            private ProcessorContext<String, ResourceEstimate> context;
            private KeyValueStore<String, ResourceEstimate> estimates;

            @Override
            public void init(ProcessorContext<String, ResourceEstimate> context) {
                this.context = context;
                this.estimates = context.getStateStore(ESTIMATOR_STORE);
            }

            @Override
            public void process(Record<String, ResourceObservation> record) {
                if (record.value() == null) return;
                ResourceEstimate next = estimator.update(estimates.get(record.key()), record.value());
                estimates.put(record.key(), next);
                context.forward(record.withValue(next));
            }
        }, "observations");
        topology.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(ESTIMATOR_STORE), Serdes.String(),
                topics.storeSerde(ResourceEstimate.class)).withCachingEnabled(), "estimator");
        topology.addSink("estimates", topics.tasksEstimates.name(), topics.tasksEstimates.keySerde().serializer(),
                topics.tasksEstimates.valueSerde().serializer(), "estimator");
        topology.addGlobalStore(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(ESTIMATES_STORE), Serdes.String(),
                        topics.storeSerde(ResourceEstimate.class)).withLoggingDisabled(),
                "estimates-global", topics.tasksEstimates.keySerde().deserializer(), topics.tasksEstimates.valueSerde().deserializer(),
                topics.tasksEstimates.name(), "estimates-updater", GlobalTables.putOrDelete(ESTIMATES_STORE));
    }

    private static void source(Topology topology, String name, Topic<String, ?> topic) {
        topology.addSource(name, topic.keySerde().deserializer(), topic.valueSerde().deserializer(), topic.name());
    }

    private static <V extends SpecificRecord> void store(Topology topology, String name, FlashTopics topics, Class<V> type) {
        topology.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(name), Serdes.String(),
                topics.storeSerde(type)).withCachingEnabled(), PLANNER);
    }

    private static <V> void sink(Topology topology, String name, Topic<String, V> topic) {
        topology.addSink(name, topic.name(), topic.keySerde().serializer(), topic.valueSerde().serializer(), PLANNER);
    }
}
