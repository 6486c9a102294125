package io.flash.executor.sim;

import io.flash.common.topics.FlashTopics;
import io.flash.common.topics.KeyPartitions;
import io.flash.executor.agent.RunningAttempts;
import io.flash.executor.attempt.AttemptRef;
import io.flash.executor.attempt.NodeSettings;
import io.flash.executor.channel.NodeChannel;
import io.flash.schema.Assignment;
import io.flash.schema.AssignmentAction;
import io.flash.schema.AttemptState;
import io.flash.schema.FailureClass;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.jboss.logging.Logger;

/**
 * Many executor nodes in one process, without Docker: an attempt "runs" for a duration drawn from
 * {@link RunTimes}, then succeeds (or fails as an infrastructure failure at the configured rate).
 * Nodes heartbeat and report through the same {@link NodeChannel} and {@link RunningAttempts} as a
 * real node, so the framework cannot tell them apart; real nodes may serve the same framework. One
 * consumer reads every partition of the assignments topic and acts on records keyed by its nodes.
 * A fleet that restarts forgets its attempts: its nodes come back with a new start time and the
 * framework reports what they ran as NODE_LOST, as for a real node that lost its containers.
 */
public final class SimulatedFleet implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(SimulatedFleet.class);
    /** Heartbeats go out in this many slices per interval, so 5,000 nodes do not heartbeat in one burst. */
    private static final int HEARTBEAT_SLICES = 20;

    public record Settings(int nodes, String idPrefix, RunTimes runTimes, double failureRate, long seed) {
    }

    private record Node(NodeSettings settings, RunningAttempts running, Map<String, ScheduledFuture<?>> finishing) {
    }

    private final Settings fleet;
    private final Map<String, Node> nodes = new LinkedHashMap<>();
    private final List<Node> order;
    private final NodeChannel channel;
    private final KafkaConsumer<String, byte[]> consumer;
    private final ScheduledExecutorService clock = Executors.newScheduledThreadPool(2, r -> {
        Thread t = new Thread(r, "simulated-attempts");
        t.setDaemon(true);
        return t;
    });
    /** Its own thread: heartbeats must not wait behind a burst of attempts ending (nodes would be declared lost). */
    private final ScheduledExecutorService heartbeats = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "simulated-heartbeats");
        t.setDaemon(true);
        return t;
    });
    private final Random random;
    private final Duration heartbeatInterval;
    private final long startedAt = System.currentTimeMillis();
    private final AtomicLong finished = new AtomicLong();
    private volatile long lastHeartbeatAcked = System.currentTimeMillis();
    private volatile boolean stopping;
    private Map<String, Integer> partitionOf = Map.of();
    private Thread pollThread;
    private long heartbeatTick;

    public SimulatedFleet(Settings fleet, NodeSettings template, FlashTopics topics, String bootstrapServers) {
        this.fleet = fleet;
        this.random = new Random(fleet.seed());
        this.heartbeatInterval = template.heartbeatInterval();
        int width = String.valueOf(fleet.nodes()).length();
        for (int i = 1; i <= fleet.nodes(); i++) {
            String id = fleet.idPrefix() + "-" + String.format("%0" + width + "d", i);
            nodes.put(id, new Node(template.withNodeId(id), new RunningAttempts(), new ConcurrentHashMap<>()));
        }
        this.order = List.copyOf(nodes.values());
        this.channel = new NodeChannel(topics, template.frameworkId(), bootstrapServers, 5);
        this.consumer = NodeChannel.assignmentConsumer(bootstrapServers, "flash-executor-" + fleet.idPrefix(), 50);
    }

    public void start() throws InterruptedException {
        List<TopicPartition> partitions = NodeChannel.assignmentPartitions(consumer, order.get(0).settings().frameworkId(),
                Duration.ofSeconds(120));
        consumer.assign(partitions);
        Map<TopicPartition, OffsetAndMetadata> positions = new HashMap<>();
        for (TopicPartition p : partitions) positions.put(p, new OffsetAndMetadata(consumer.position(p)));
        consumer.commitSync(positions); // pinned before the first heartbeat: nothing assigned after it is skipped
        Map<String, Integer> owned = new HashMap<>();
        for (String id : nodes.keySet()) {
            owned.put(id, KeyPartitions.of(id, partitions.size()));
        }
        partitionOf = owned;
        long slice = Math.max(1, heartbeatInterval.toMillis() / HEARTBEAT_SLICES);
        heartbeats.scheduleAtFixedRate(this::heartbeatSlice, 0, slice, TimeUnit.MILLISECONDS);
        pollThread = new Thread(this::pollLoop, "simulated-assignments");
        pollThread.start();
        LOG.infof("%d simulated nodes %s-* serve framework %s (%s cpu, %d MiB each; run time %s, failure rate %.3f)",
                nodes.size(), fleet.idPrefix(), order.get(0).settings().frameworkId(), order.get(0).settings().capacity().getCpu(),
                order.get(0).settings().capacity().getMemoryBytes() >> 20, fleet.runTimes(), fleet.failureRate());
    }

    private void heartbeatSlice() {
        try {
            int slice = (int) (heartbeatTick++ % HEARTBEAT_SLICES);
            for (int i = slice; i < order.size(); i += HEARTBEAT_SLICES) {
                Node node = order.get(i);
                channel.heartbeat(node.running().heartbeat(node.settings(), List.of(), partitionOf.get(node.settings().nodeId()),
                        startedAt, null), (metadata, error) -> {
                    if (error == null) lastHeartbeatAcked = System.currentTimeMillis();
                });
            }
        } catch (Exception e) {
            LOG.warnf("heartbeat failed: %s", e.getMessage());
        }
    }

    private void pollLoop() {
        try {
            while (!stopping) {
                ConsumerRecords<String, byte[]> records = consumer.poll(Duration.ofMillis(200));
                if (records.isEmpty()) continue;
                for (ConsumerRecord<String, byte[]> record : records) {
                    Node node = nodes.get(record.key());
                    if (node == null) continue; // a real node's, or another fleet's
                    Assignment assignment = channel.decode(record);
                    if (assignment == null) continue;
                    if (assignment.getAction() == AssignmentAction.KILL) {
                        kill(node, assignment);
                    } else if (assignment.getAction() == AssignmentAction.RUN) {
                        run(node, assignment);
                    } else {
                        LOG.warnf("simulated node %s ignores %s: simulated nodes neither drain nor are reclaimed", record.key(), assignment.getAction());
                    }
                }
                // STARTED is handed to the producer before the position moves past its assignment.
                consumer.commitAsync();
            }
        } catch (WakeupException e) {
            // shutting down
        } catch (Exception e) {
            LOG.error("simulated assignment loop stopped", e);
        } finally {
            consumer.close(Duration.ofSeconds(5));
        }
    }

    private void run(Node node, Assignment a) {
        String attemptId = a.getAttemptId();
        if (!node.running().claim(attemptId, new RunningAttempts.Attempt(a.getJobId(), a.getTaskId(), a.getTask().getResources()))) {
            return; // redelivered
        }
        String nodeId = node.settings().nodeId();
        channel.report(new AttemptRef(a.getJobId(), a.getTaskId(), attemptId).event(nodeId, AttemptState.STARTED).build());
        boolean fails;
        Duration runTime;
        synchronized (random) {
            fails = random.nextDouble() < fleet.failureRate();
            runTime = fleet.runTimes().next(random);
        }
        synchronized (node) { // the attempt is registered before it can finish, even after 0 ms
            node.finishing().put(attemptId, clock.schedule(() -> finish(node, a, fails), runTime.toMillis(), TimeUnit.MILLISECONDS));
        }
    }

    private void finish(Node node, Assignment a, boolean fails) {
        String nodeId = node.settings().nodeId(), attemptId = a.getAttemptId();
        synchronized (node) {
            if (node.finishing().remove(attemptId) == null) return; // killed meanwhile
        }
        {
            var done = new AttemptRef(a.getJobId(), a.getTaskId(), attemptId).event(nodeId, fails ? AttemptState.FAILED : AttemptState.SUCCEEDED);
            if (fails) {
                done.setExitCode(null).setFailureClass(FailureClass.INFRASTRUCTURE).setReason("simulated infrastructure failure");
            } else {
                done.setExitCode(0);
            }
            channel.report(done.build());
            node.running().release(attemptId);
            finished.incrementAndGet();
        }
    }

    private void kill(Node node, Assignment a) {
        ScheduledFuture<?> finishing;
        synchronized (node) {
            finishing = node.finishing().remove(a.getAttemptId());
        }
        if (finishing == null) return;
        finishing.cancel(false);
        channel.report(AttemptRef.of(a).event(node.settings().nodeId(), AttemptState.CANCELLED)
                .setFailureClass(FailureClass.CANCELLED).setReason(a.getReason() == null ? "killed by the framework" : a.getReason()).build());
        node.running().release(a.getAttemptId());
    }

    public void bindMetrics(MeterRegistry registry) {
        new KafkaClientMetrics(consumer).bindTo(registry);
        channel.bindMetrics(registry);
        Gauge.builder("flash_executor_attempts_running", this, SimulatedFleet::runningAttempts)
                .description("attempts the simulated nodes are running").register(registry);
        FunctionCounter.builder("flash_executor_simulated_finished", finished, AtomicLong::get)
                .description("simulated attempts run to their end").register(registry);
    }

    public boolean healthy() {
        long silence = System.currentTimeMillis() - lastHeartbeatAcked;
        return pollThread != null && pollThread.isAlive() && silence < Math.max(10_000, 3 * heartbeatInterval.toMillis());
    }

    public int runningAttempts() {
        int n = 0;
        for (Node node : order) n += node.running().size();
        return n;
    }

    public int nodes() {
        return nodes.size();
    }

    @Override
    public void close() {
        stopping = true;
        clock.shutdownNow();
        heartbeats.shutdownNow();
        consumer.wakeup();
        try {
            if (pollThread != null) pollThread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        channel.close();
    }
}
