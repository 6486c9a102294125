package io.flash.common.topics;

import io.flash.schema.*;

import java.time.Duration;
import java.util.List;

/**
 * Every topic Flash uses, declared once: its name (a framework's from the framework id), its value
 * type (keys are strings), how many partitions it has and how long it keeps records. {@link FlashTopics}
 * derives the typed topics and serdes from it, {@code PlatformSetup} creates the topics from it, and
 * a test holds the README's topic table to it. Topics are never auto-created.
 */
public final class TopicCatalog {

    /** How many partitions a kind of topic has. */
    public enum Partitions {
        /** The platform's partition count: keyed, scalable topics (jobs, tasks). */
        PLATFORM,
        ONE,
        /** A framework's scheduling shards (its tasks, nodes and node events are co-partitioned: partition i is shard i). */
        SHARDS,
        /** A framework's assignment partitions (nodes read theirs by node id). */
        ASSIGNMENTS
    }

    /**
     * One kind of topic.
     *
     * @param name      the name; a framework's contains {@code <framework>}
     * @param retention how long records are kept; null: compacted (the latest value per key)
     */
    public record Kind<V>(String name, Class<V> valueType, Partitions partitions, Duration retention) {

        public boolean compacted() {
            return retention == null;
        }

        public String nameFor(String frameworkId) {
            return name.replace(FRAMEWORK, frameworkId);
        }

        TopicSpec spec(String topicName, int partitionCount) {
            return new TopicSpec(topicName, partitionCount, compacted(), retention);
        }
    }

    static final String FRAMEWORK = "<framework>";
    private static final Duration WEEK = Duration.ofDays(7);
    private static final Duration DAY = Duration.ofDays(1);

    public static final Kind<JobSubmission> JOBS_SUBMITTED = new Kind<>(TopicNames.JOBS_SUBMITTED, JobSubmission.class, Partitions.PLATFORM, WEEK);
    public static final Kind<JobRejected> JOBS_REJECTED = new Kind<>(TopicNames.JOBS_REJECTED, JobRejected.class, Partitions.PLATFORM, WEEK);
    public static final Kind<JobAccepted> JOBS_ACCEPTED = new Kind<>(TopicNames.JOBS_ACCEPTED, JobAccepted.class, Partitions.PLATFORM, WEEK);
    public static final Kind<JobCommand> JOBS_COMMANDS = new Kind<>(TopicNames.JOBS_COMMANDS, JobCommand.class, Partitions.PLATFORM, WEEK);
    public static final Kind<TaskReady> TASKS_READY = new Kind<>(TopicNames.TASKS_READY, TaskReady.class, Partitions.PLATFORM, WEEK);
    public static final Kind<TaskReadyBatch> TASKS_READY_BATCHES = new Kind<>(TopicNames.TASKS_READY_BATCHES, TaskReadyBatch.class,
            Partitions.PLATFORM, WEEK);
    public static final Kind<TaskEvent> TASKS_EVENTS = new Kind<>(TopicNames.TASKS_EVENTS, TaskEvent.class, Partitions.PLATFORM, WEEK);
    public static final Kind<UsageSample> TASKS_USAGE = new Kind<>(TopicNames.TASKS_USAGE, UsageSample.class, Partitions.PLATFORM, DAY);
    public static final Kind<LogChunk> TASKS_LOGS = new Kind<>(TopicNames.TASKS_LOGS, LogChunk.class, Partitions.PLATFORM, WEEK);
    public static final Kind<ResourceObservation> TASKS_OBSERVATIONS = new Kind<>(TopicNames.TASKS_OBSERVATIONS,
            ResourceObservation.class, Partitions.PLATFORM, WEEK);
    public static final Kind<ResourceEstimate> TASKS_ESTIMATES = new Kind<>(TopicNames.TASKS_ESTIMATES, ResourceEstimate.class,
            Partitions.PLATFORM, null);
    /** The task-result cache's index (docs/caching.md): by scope|cacheKey, compacted. */
    public static final Kind<CacheEntry> CACHE_ENTRIES = new Kind<>(TopicNames.CACHE_ENTRIES, CacheEntry.class, Partitions.PLATFORM, null);
    public static final Kind<JobStatus> JOBS_STATUS = new Kind<>(TopicNames.JOBS_STATUS, JobStatus.class, Partitions.PLATFORM, null);
    public static final Kind<TaskSummary> TASKS_STATUS = new Kind<>(TopicNames.TASKS_STATUS, TaskSummary.class, Partitions.PLATFORM, null);
    public static final Kind<JobResult> JOBS_RESULTS = new Kind<>(TopicNames.JOBS_RESULTS, JobResult.class, Partitions.PLATFORM,
            Duration.ofDays(30));
    public static final Kind<FrameworkHeartbeat> FRAMEWORK_HEARTBEATS = new Kind<>(TopicNames.FRAMEWORK_HEARTBEATS,
            FrameworkHeartbeat.class, Partitions.ONE, null);
    public static final Kind<CapacityDecision> CAPACITY_DECISIONS = new Kind<>(TopicNames.CAPACITY_DECISIONS, CapacityDecision.class,
            Partitions.ONE, WEEK);
    /** Raw bytes of records that could not be read or handled, with the reason in headers. */
    public static final Kind<byte[]> DEAD_LETTER = new Kind<>(TopicNames.DEAD_LETTER, byte[].class, Partitions.ONE, WEEK);

    public static final Kind<TaskDispatch> FRAMEWORK_TASKS = new Kind<>(TopicNames.frameworkTasks(FRAMEWORK), TaskDispatch.class,
            Partitions.SHARDS, WEEK);
    public static final Kind<NodeHeartbeat> FRAMEWORK_NODES = new Kind<>(TopicNames.frameworkNodes(FRAMEWORK), NodeHeartbeat.class,
            Partitions.SHARDS, null);
    public static final Kind<AttemptEvent> FRAMEWORK_NODE_EVENTS = new Kind<>(TopicNames.frameworkNodeEvents(FRAMEWORK),
            AttemptEvent.class, Partitions.SHARDS, WEEK);
    public static final Kind<Assignment> FRAMEWORK_ASSIGNMENTS = new Kind<>(TopicNames.frameworkAssignments(FRAMEWORK),
            Assignment.class, Partitions.ASSIGNMENTS, DAY);
    /** A batch framework's shard → its cluster worker (framework-batch); by shard, like its tasks. */
    public static final Kind<ClusterCommand> FRAMEWORK_CLUSTER_COMMANDS = new Kind<>(TopicNames.frameworkClusterCommands(FRAMEWORK),
            ClusterCommand.class, Partitions.SHARDS, DAY);
    /** A batch framework's cluster worker → its shard: submissions done, and what the cluster has. */
    public static final Kind<ClusterReport> FRAMEWORK_CLUSTER_REPORTS = new Kind<>(TopicNames.frameworkClusterReports(FRAMEWORK),
            ClusterReport.class, Partitions.SHARDS, DAY);

    /** Every platform topic, then every topic each framework has. */
    public static final List<Kind<?>> PLATFORM = List.of(JOBS_SUBMITTED, JOBS_REJECTED, JOBS_ACCEPTED, JOBS_COMMANDS, TASKS_READY,
            TASKS_READY_BATCHES, TASKS_EVENTS, TASKS_USAGE, TASKS_LOGS, TASKS_OBSERVATIONS, TASKS_ESTIMATES, CACHE_ENTRIES, JOBS_STATUS,
            TASKS_STATUS, JOBS_RESULTS, FRAMEWORK_HEARTBEATS, CAPACITY_DECISIONS, DEAD_LETTER);
    public static final List<Kind<?>> PER_FRAMEWORK = List.of(FRAMEWORK_TASKS, FRAMEWORK_NODES, FRAMEWORK_NODE_EVENTS,
            FRAMEWORK_ASSIGNMENTS, FRAMEWORK_CLUSTER_COMMANDS, FRAMEWORK_CLUSTER_REPORTS);

    private TopicCatalog() {
    }

    /** @param partitions partitions of the keyed, scalable topics (jobs, tasks) */
    public static List<TopicSpec> platformTopics(int partitions) {
        return PLATFORM.stream().map(k -> k.spec(k.name(), k.partitions() == Partitions.ONE ? 1 : partitions)).toList();
    }

    /** The topics of one level-2 framework: {@code shards} partitions of tasks, nodes and node events; assignments may differ. */
    public static List<TopicSpec> frameworkTopics(String frameworkId, int shards, int assignmentPartitions) {
        return PER_FRAMEWORK.stream().map(k -> k.spec(k.nameFor(frameworkId),
                k.partitions() == Partitions.ASSIGNMENTS ? assignmentPartitions : shards)).toList();
    }
}
