package io.flash.common.topics;

import io.flash.common.serde.ValueSerdes;
import io.flash.schema.*;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;

/**
 * The typed topics of {@link TopicCatalog}: name, key serde and value serde. Every service builds one
 * from its {@link ValueSerdes} (schema registry in production, a registry-free serde in topology tests).
 */
public final class FlashTopics {

    private final ValueSerdes serdes;

    public final Topic<String, JobSubmission> jobsSubmitted;
    public final Topic<String, JobRejected> jobsRejected;
    public final Topic<String, JobAccepted> jobsAccepted;
    /** Read by the dispatcher for records written before {@link #tasksReadyBatches}; nothing writes it now. */
    public final Topic<String, TaskReady> tasksReady;
    public final Topic<String, TaskReadyBatch> tasksReadyBatches;
    public final Topic<String, TaskEvent> tasksEvents;
    public final Topic<String, UsageSample> tasksUsage;
    public final Topic<String, LogChunk> tasksLogs;
    public final Topic<String, ResourceObservation> tasksObservations;
    public final Topic<String, ResourceEstimate> tasksEstimates;
    public final Topic<String, CacheEntry> cacheEntries;
    public final Topic<String, JobStatus> jobsStatus;
    public final Topic<String, TaskSummary> tasksStatus;
    public final Topic<String, JobCommand> jobsCommands;
    public final Topic<String, JobResult> jobsResults;
    public final Topic<String, FrameworkHeartbeat> frameworkHeartbeats;
    public final Topic<String, CapacityDecision> capacityDecisions;
    /** Each framework's tasks topic (the dispatcher writes the one its record names). */
    public final TopicFamily<String, TaskDispatch> frameworkTasks;

    public FlashTopics(ValueSerdes serdes) {
        this.serdes = serdes;
        jobsSubmitted = topic(TopicCatalog.JOBS_SUBMITTED);
        jobsRejected = topic(TopicCatalog.JOBS_REJECTED);
        jobsAccepted = topic(TopicCatalog.JOBS_ACCEPTED);
        tasksReady = topic(TopicCatalog.TASKS_READY);
        tasksReadyBatches = topic(TopicCatalog.TASKS_READY_BATCHES);
        tasksEvents = topic(TopicCatalog.TASKS_EVENTS);
        tasksUsage = topic(TopicCatalog.TASKS_USAGE);
        tasksLogs = topic(TopicCatalog.TASKS_LOGS);
        tasksObservations = topic(TopicCatalog.TASKS_OBSERVATIONS);
        tasksEstimates = topic(TopicCatalog.TASKS_ESTIMATES);
        cacheEntries = topic(TopicCatalog.CACHE_ENTRIES);
        jobsStatus = topic(TopicCatalog.JOBS_STATUS);
        tasksStatus = topic(TopicCatalog.TASKS_STATUS);
        jobsCommands = topic(TopicCatalog.JOBS_COMMANDS);
        jobsResults = topic(TopicCatalog.JOBS_RESULTS);
        frameworkHeartbeats = topic(TopicCatalog.FRAMEWORK_HEARTBEATS);
        capacityDecisions = topic(TopicCatalog.CAPACITY_DECISIONS);
        frameworkTasks = new TopicFamily<>(TopicCatalog.FRAMEWORK_TASKS::nameFor, Serdes.String(),
                serdes.forValue(TopicCatalog.FRAMEWORK_TASKS.valueType()));
    }

    public Topic<String, TaskDispatch> frameworkTasks(String frameworkId) {
        return frameworkTasks.of(frameworkId);
    }

    public Topic<String, NodeHeartbeat> frameworkNodes(String frameworkId) {
        return topic(TopicCatalog.FRAMEWORK_NODES, frameworkId);
    }

    public Topic<String, Assignment> frameworkAssignments(String frameworkId) {
        return topic(TopicCatalog.FRAMEWORK_ASSIGNMENTS, frameworkId);
    }

    public Topic<String, AttemptEvent> frameworkNodeEvents(String frameworkId) {
        return topic(TopicCatalog.FRAMEWORK_NODE_EVENTS, frameworkId);
    }

    public Topic<String, ClusterCommand> frameworkClusterCommands(String frameworkId) {
        return topic(TopicCatalog.FRAMEWORK_CLUSTER_COMMANDS, frameworkId);
    }

    public Topic<String, ClusterReport> frameworkClusterReports(String frameworkId) {
        return topic(TopicCatalog.FRAMEWORK_CLUSTER_REPORTS, frameworkId);
    }

    /** The serde of a state store value; its changelog topic is registered like any other topic. */
    public <V extends SpecificRecord> Serde<V> storeSerde(Class<V> type) {
        return serdes.forStoredValue(type);
    }

    private <V extends SpecificRecord> Topic<String, V> topic(TopicCatalog.Kind<V> kind) {
        return new Topic<>(kind.name(), Serdes.String(), serdes.forValue(kind.valueType()));
    }

    private <V extends SpecificRecord> Topic<String, V> topic(TopicCatalog.Kind<V> kind, String frameworkId) {
        return new Topic<>(kind.nameFor(frameworkId), Serdes.String(), serdes.forValue(kind.valueType()));
    }
}
