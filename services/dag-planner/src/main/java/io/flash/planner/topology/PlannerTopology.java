package io.flash.planner.topology;

import io.flash.common.topics.FlashTopics;
import io.flash.planner.dag.JobStateMachine;
import io.flash.planner.dag.RetryPolicy;
import io.flash.planner.dag.Transition;
import io.flash.schema.*;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.avro.specific.SpecificRecord;

import java.time.Clock;

/**
 * dag-planner: accepted jobs and task events (both keyed by job id, so co-partitioned) meet in one
 * processor that owns the job store. State: {@link #JOBS_STORE}, job id → {@link PlannedJob}.
 */
public final class PlannerTopology {

    public static final String JOBS_STORE = "planner-jobs";

    private static final String ACCEPTED = "accepted";
    private static final String EVENTS = "task-events";
    private static final String PLANNER = "planner";
    private static final String READY_SINK = "tasks-ready";
    private static final String STATUS_SINK = "jobs-status";
    private static final String RESULT_SINK = "jobs-results";

    private PlannerTopology() {
    }

    public static Topology build(FlashTopics topics, RetryPolicy retryPolicy, Clock clock) {
        Topology topology = new Topology();
        topology.addSource(ACCEPTED, topics.jobsAccepted.keySerde().deserializer(),
                topics.jobsAccepted.valueSerde().deserializer(), topics.jobsAccepted.name());
        topology.addSource(EVENTS, topics.tasksEvents.keySerde().deserializer(),
                topics.tasksEvents.valueSerde().deserializer(), topics.tasksEvents.name());
        JobStateMachine machine = new JobStateMachine(retryPolicy);
        topology.addProcessor(PLANNER, () -> new PlannerProcessor(machine, clock), ACCEPTED, EVENTS);
        topology.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(JOBS_STORE),
                Serdes.String(), topics.storeSerde(PlannedJob.class)), PLANNER);
        topology.addSink(READY_SINK, topics.tasksReady.name(), topics.tasksReady.keySerde().serializer(),
                topics.tasksReady.valueSerde().serializer(), PLANNER);
        topology.addSink(STATUS_SINK, topics.jobsStatus.name(), topics.jobsStatus.keySerde().serializer(),
                topics.jobsStatus.valueSerde().serializer(), PLANNER);
        topology.addSink(RESULT_SINK, topics.jobsResults.name(), topics.jobsResults.keySerde().serializer(),
                topics.jobsResults.valueSerde().serializer(), PLANNER);
        return topology;
    }

    static final class PlannerProcessor implements Processor<String, SpecificRecord, String, SpecificRecord> {
        private final JobStateMachine machine;
        private final Clock clock;
        private ProcessorContext<String, SpecificRecord> context;
        private KeyValueStore<String, PlannedJob> jobs;

        PlannerProcessor(JobStateMachine machine, Clock clock) {
            this.machine = machine;
            this.clock = clock;
        }

        @Override
        public void init(ProcessorContext<String, SpecificRecord> context) {
            this.context = context;
            this.jobs = context.getStateStore(JOBS_STORE);
        }

        @Override
        public void process(Record<String, SpecificRecord> record) {
            long now = clock.millis();
            Transition transition;
            if (record.value() instanceof JobAccepted accepted) {
                if (jobs.get(accepted.getJobId()) != null) {
                    return; // the same submission again: the job id is derived from it, so it already runs
                }
                transition = machine.start(accepted, now);
            } else if (record.value() instanceof TaskEvent event) {
                PlannedJob job = jobs.get(event.getJobId());
                if (job == null) {
                    return;
                }
                transition = machine.apply(job, event, now);
            } else {
                return;
            }
            if (!transition.changed()) {
                return;
            }
            String jobId = transition.job().getJob().getJobId();
            jobs.put(jobId, transition.job());
            for (TaskReady ready : transition.ready()) {
                context.forward(new Record<String, SpecificRecord>(ready.getTaskId(), ready, now), READY_SINK);
            }
            if (transition.status() != null) {
                context.forward(new Record<String, SpecificRecord>(jobId, transition.status(), now), STATUS_SINK);
            }
            if (transition.result() != null) {
                context.forward(new Record<String, SpecificRecord>(jobId, transition.result(), now), RESULT_SINK);
            }
        }
    }
}
