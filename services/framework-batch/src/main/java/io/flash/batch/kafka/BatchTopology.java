package io.flash.batch.kafka;

import io.flash.common.streams.QuietInput;
import io.flash.batch.core.BatchSettings;
import io.flash.batch.core.Workspaces;
import io.flash.common.streams.Wiring;
import io.flash.common.topics.FlashTopics;
import io.flash.common.topics.Topic;
import io.flash.schema.ClusterCommand;
import io.flash.schema.TaskDispatch;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.Topology;

import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/**
 * framework-batch: partition i of the framework's tasks topic is scheduling shard i (the dispatcher
 * chooses it), co-partitioned with the cluster reports its worker sends back; each shard sends its
 * cluster commands to partition i of the commands topic ({@link ClusterWorkerLoop} carries them out).
 * State per shard: {@link #WAITING_STORE} and {@link #SUBMITTED_STORE} (attempt id → TaskDispatch),
 * {@link #IDS_STORE} (attempt id → cluster job id), {@link #MARKS_STORE} (when things happened).
 */
public final class BatchTopology {

    public static final String WAITING_STORE = "batch-waiting";
    public static final String SUBMITTED_STORE = "batch-submitted";
    public static final String IDS_STORE = "batch-cluster-ids";
    public static final String MARKS_STORE = "batch-marks";

    static final String TASKS = "framework-tasks";
    static final String REPORTS = "cluster-reports";
    static final String COMMANDS_SINK = "cluster-commands";
    static final String SHARD = "shard";
    static final String EVENTS_SINK = "task-events";
    static final String HEARTBEAT_SINK = "framework-heartbeats";
    static final String OWN_TASKS_SINK = "own-tasks";
    static final String LOGS_SINK = "task-logs";

    private BatchTopology() {
    }

    public static Topology build(FlashTopics topics, BatchSettings settings, Duration tick, Workspaces workspaces, Clock clock) {
        String fw = settings.frameworkId();
        Topology topology = new Topology();
        Wiring.source(topology, TASKS, topics.frameworkTasks(fw));
        Wiring.source(topology, REPORTS, topics.frameworkClusterReports(fw));
        QuietInput quietInput = QuietInput.defaults(); // one for all of the instance's tasks: a commit is the thread's
        topology.addProcessor(SHARD, () -> new BatchProcessor(settings, tick, workspaces, clock, quietInput), TASKS, REPORTS);
        Wiring.store(topology, WAITING_STORE, topics.storeSerde(TaskDispatch.class), SHARD);
        Wiring.store(topology, SUBMITTED_STORE, topics.storeSerde(TaskDispatch.class), SHARD);
        Wiring.store(topology, IDS_STORE, Serdes.String(), SHARD);
        Wiring.store(topology, MARKS_STORE, Serdes.Long(), SHARD);
        Wiring.sink(topology, EVENTS_SINK, topics.tasksEvents, SHARD);
        Wiring.sink(topology, HEARTBEAT_SINK, topics.frameworkHeartbeats, SHARD);
        Wiring.sink(topology, LOGS_SINK, topics.tasksLogs, SHARD);
        Wiring.markerSink(topology, OWN_TASKS_SINK, topics.frameworkTasks(fw), SHARD);
        Topic<String, ClusterCommand> commands = topics.frameworkClusterCommands(fw);
        topology.addSink(COMMANDS_SINK, commands.name(), commands.keySerde().serializer(), commands.valueSerde().serializer(),
                (String topic, String key, ClusterCommand command, int partitions) -> Optional.of(Set.of(command.getShard() % partitions)),
                SHARD);
        return topology;
    }
}
