package io.flash.common.topics;

import io.flash.common.serde.ValueSerdes;
import io.flash.schema.*;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;

/**
 * The typed registry of Flash topics: name, key serde and value serde. Every service builds one from
 * its {@link ValueSerdes} (schema registry in production, a registry-free serde in topology tests).
 */
public final class FlashTopics {

    private final ValueSerdes serdes;

    public final Topic<String, JobSubmission> jobsSubmitted;
    public final Topic<String, JobRejected> jobsRejected;
    public final Topic<String, JobAccepted> jobsAccepted;
    public final Topic<String, TaskReady> tasksReady;
    public final Topic<String, TaskEvent> tasksEvents;
    public final Topic<String, UsageSample> tasksUsage;
    public final Topic<String, LogChunk> tasksLogs;
    public final Topic<String, ResourceObservation> tasksObservations;
    public final Topic<String, ResourceEstimate> tasksEstimates;
    public final Topic<String, JobStatus> jobsStatus;
    public final Topic<String, TaskSummary> tasksStatus;
    public final Topic<String, JobCommand> jobsCommands;
    public final Topic<String, JobResult> jobsResults;
    public final Topic<String, FrameworkHeartbeat> frameworkHeartbeats;
    /** Each framework's tasks topic (the dispatcher writes the one its record names). */
    public final TopicFamily<String, TaskDispatch> frameworkTasks;

    public FlashTopics(ValueSerdes serdes) {
        this.serdes = serdes;
        jobsSubmitted = topic(TopicNames.JOBS_SUBMITTED, JobSubmission.class);
        jobsRejected = topic(TopicNames.JOBS_REJECTED, JobRejected.class);
        jobsAccepted = topic(TopicNames.JOBS_ACCEPTED, JobAccepted.class);
        tasksReady = topic(TopicNames.TASKS_READY, TaskReady.class);
        tasksEvents = topic(TopicNames.TASKS_EVENTS, TaskEvent.class);
        tasksUsage = topic(TopicNames.TASKS_USAGE, UsageSample.class);
        tasksLogs = topic(TopicNames.TASKS_LOGS, LogChunk.class);
        tasksObservations = topic(TopicNames.TASKS_OBSERVATIONS, ResourceObservation.class);
        tasksEstimates = topic(TopicNames.TASKS_ESTIMATES, ResourceEstimate.class);
        jobsStatus = topic(TopicNames.JOBS_STATUS, JobStatus.class);
        tasksStatus = topic(TopicNames.TASKS_STATUS, TaskSummary.class);
        jobsCommands = topic(TopicNames.JOBS_COMMANDS, JobCommand.class);
        jobsResults = topic(TopicNames.JOBS_RESULTS, JobResult.class);
        frameworkHeartbeats = topic(TopicNames.FRAMEWORK_HEARTBEATS, FrameworkHeartbeat.class);
        frameworkTasks = new TopicFamily<>(TopicNames::frameworkTasks, Serdes.String(), serdes.forValue(TaskDispatch.class));
    }

    public Topic<String, TaskDispatch> frameworkTasks(String frameworkId) {
        return frameworkTasks.of(frameworkId);
    }

    public Topic<String, NodeHeartbeat> frameworkNodes(String frameworkId) {
        return topic(TopicNames.frameworkNodes(frameworkId), NodeHeartbeat.class);
    }

    public Topic<String, Assignment> frameworkAssignments(String frameworkId) {
        return topic(TopicNames.frameworkAssignments(frameworkId), Assignment.class);
    }

    public Topic<String, AttemptEvent> frameworkNodeEvents(String frameworkId) {
        return topic(TopicNames.frameworkNodeEvents(frameworkId), AttemptEvent.class);
    }

    /** The serde of a state store value; its changelog topic is registered like any other topic. */
    public <V extends org.apache.avro.specific.SpecificRecord> Serde<V> storeSerde(Class<V> type) {
        return serdes.forValue(type);
    }

    private <V extends org.apache.avro.specific.SpecificRecord> Topic<String, V> topic(String name, Class<V> type) {
        return new Topic<>(name, Serdes.String(), serdes.forValue(type));
    }
}
