package io.flash.planner.kafka;

import io.flash.common.streams.QuietInput;
import io.flash.common.streams.Wiring;
import io.flash.common.topics.FlashTopics;
import io.flash.planner.core.cache.ResultCache;
import io.flash.planner.core.RetryPolicy;
import io.flash.schema.*;
import io.flash.planner.core.ResourceEstimator;
import io.flash.planner.core.ShardSizing;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

import java.time.Clock;
import java.time.Duration;

/**
 * dag-planner: accepted jobs, task events and job commands (all keyed by job id, so
 * co-partitioned) meet in one processor. Its state: {@link #WHOLE_JOBS_STORE} job id → WholeJob,
 * a small job in one record; a larger one split so no record grows with it: {@link #JOBS_STORE}
 * job id → JobProgress; {@link #SPECS_STORE} and {@link #TASKS_STORE} "jobId/task" →
 * TaskDefinition and LogicalTask; {@link #UNITS_STORE} unit id (task or shard id) →
 * TaskSummary; {@link #DELAYED_STORE} "dueAt/attemptId" → retries waiting out their backoff;
 * {@link #OUTBOX_STORE} the attempts made ready and not yet sent, under one key.
 */
public final class PlannerTopology {

    /** A small job kept whole, in one record (see {@link StreamsPlanStore}). */
    public static final String WHOLE_JOBS_STORE = "planner-whole-jobs";
    public static final String JOBS_STORE = "planner-jobs";
    public static final String SPECS_STORE = "planner-specs";
    public static final String TASKS_STORE = "planner-tasks";
    public static final String UNITS_STORE = "planner-units";
    public static final String DELAYED_STORE = "planner-delayed";
    public static final String OUTBOX_STORE = "planner-outbox";
    /** How long attempts made ready may wait to be sent together (flash.planner.envelope-interval). */
    public static final Duration DEFAULT_ENVELOPE_INTERVAL = Duration.ofMillis(5);
    /** Global: signature → ResourceEstimate, from the compacted estimates topic. */
    public static final String ESTIMATES_STORE = "planner-estimates";
    /** Global: framework shard → its latest heartbeat (the largest node an OOM-killed attempt may grow to). */
    public static final String FRAMEWORKS_STORE = "planner-frameworks";
    /** signature → ResourceEstimate, kept by the estimator that writes that topic. */
    public static final String ESTIMATOR_STORE = "planner-estimator";

    static final String PLANNER = "planner";
    static final String READY_SINK = "tasks-ready";
    static final String STATUS_SINK = "jobs-status";
    static final String UNIT_STATUS_SINK = "tasks-status";
    static final String RESULT_SINK = "jobs-results";
    static final String OBSERVATION_SINK = "tasks-observations";
    static final String CACHE_SINK = "cache-entries";
    /** entry id → CacheEntry: this task's partition of the cache index, for eviction. */
    public static final String CACHE_INDEX_STORE = "planner-cache-index";

    private PlannerTopology() {
    }

    public static Topology build(FlashTopics topics, RetryPolicy retryPolicy, Duration tick, Clock clock) {
        return build(topics, retryPolicy, ShardSizing.defaults(), tick, DEFAULT_ENVELOPE_INTERVAL, clock);
    }

    public static Topology build(FlashTopics topics, RetryPolicy retryPolicy, ShardSizing sizing, Duration tick,
                                 Duration envelopeInterval, Clock clock) {
        return build(topics, retryPolicy, sizing, CacheSettings.defaults(), tick, envelopeInterval, clock);
    }

    /** The task-result cache's settings (docs/caching.md): whose results are shared, the index's bounds, how often they are applied. */
    public record CacheSettings(ResultCache.Sharing sharing, ResultCache.Limits limits, Duration evictEvery) {
        public static CacheSettings defaults() {
            return new CacheSettings(ResultCache.Sharing.OWNER, new ResultCache.Limits(Duration.ofDays(30).toMillis(), 200L << 30, 20_000),
                    Duration.ofMinutes(10));
        }
    }

    public static Topology build(FlashTopics topics, RetryPolicy retryPolicy, ShardSizing sizing, CacheSettings cache,
                                 Duration tick, Duration envelopeInterval, Clock clock) {
        ResultCache.Sharing cacheSharing = cache.sharing();
        Topology topology = new Topology();
        String[] sources = {"accepted", "task-events", "commands"};
        Wiring.source(topology, sources[0], topics.jobsAccepted);
        Wiring.source(topology, sources[1], topics.tasksEvents);
        Wiring.source(topology, sources[2], topics.jobsCommands);
        QuietInput quietInput = QuietInput.defaults(); // one for all of the instance's tasks: a commit is the thread's
        topology.addProcessor(PLANNER,
                () -> new PlannerProcessor(retryPolicy, sizing, cacheSharing, tick, envelopeInterval, clock, quietInput), sources);
        Wiring.store(topology, WHOLE_JOBS_STORE, topics.storeSerde(WholeJob.class), PLANNER);
        Wiring.store(topology, JOBS_STORE, topics.storeSerde(JobProgress.class), PLANNER);
        Wiring.store(topology, SPECS_STORE, topics.storeSerde(TaskDefinition.class), PLANNER);
        Wiring.store(topology, TASKS_STORE, topics.storeSerde(LogicalTask.class), PLANNER);
        Wiring.store(topology, UNITS_STORE, topics.storeSerde(TaskSummary.class), PLANNER);
        Wiring.store(topology, DELAYED_STORE, topics.storeSerde(DelayedAttempt.class), PLANNER);
        Wiring.store(topology, OUTBOX_STORE, topics.storeSerde(TaskReadyBatch.class), PLANNER);
        Wiring.sink(topology, READY_SINK, topics.tasksReadyBatches, PLANNER);
        Wiring.sink(topology, STATUS_SINK, topics.jobsStatus, PLANNER);
        Wiring.sink(topology, UNIT_STATUS_SINK, topics.tasksStatus, PLANNER);
        Wiring.sink(topology, RESULT_SINK, topics.jobsResults, PLANNER);
        Wiring.sink(topology, OBSERVATION_SINK, topics.tasksObservations, PLANNER);
        Wiring.sink(topology, CACHE_SINK, topics.cacheEntries, PLANNER);
        addEstimator(topology, topics);
        addEvictor(topology, topics, cache);
        Wiring.globalTable(topology, FRAMEWORKS_STORE, topics.frameworkHeartbeats, topics.storeSerde(FrameworkHeartbeat.class),
                "frameworks-global", "frameworks-updater");
        return topology;
    }

    /** The cache index followed into a store, and what falls out of its bounds tombstoned (CacheEvictor). */
    private static void addEvictor(Topology topology, FlashTopics topics, CacheSettings cache) {
        Wiring.source(topology, "cache-index", topics.cacheEntries);
        topology.addProcessor("cache-evictor", () -> new CacheEvictor(cache.limits(), cache.evictEvery()), "cache-index");
        Wiring.store(topology, CACHE_INDEX_STORE, topics.storeSerde(CacheEntry.class), "cache-evictor");
        Wiring.sink(topology, "cache-evictions", topics.cacheEntries, "cache-evictor");
    }

    /**
     * Observations are re-keyed by signature (the planner publishes them keyed so), folded into
     * estimates, and every planner task reads all estimates through a global store.
     */
    private static void addEstimator(Topology topology, FlashTopics topics) {
        ResourceEstimator estimator = ResourceEstimator.defaults();
        Wiring.source(topology, "observations", topics.tasksObservations);
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
        Wiring.store(topology, ESTIMATOR_STORE, topics.storeSerde(ResourceEstimate.class), "estimator");
        Wiring.sink(topology, "estimates", topics.tasksEstimates, "estimator");
        Wiring.globalTable(topology, ESTIMATES_STORE, topics.tasksEstimates, topics.storeSerde(ResourceEstimate.class),
                "estimates-global", "estimates-updater");
    }
}
