package io.flash.executor.sim;

import io.flash.common.topics.FlashTopics;
import io.flash.common.topics.KeyPartitions;
import io.flash.executor.agent.RunningAttempts;
import io.flash.executor.attempt.AttemptRef;
import io.flash.executor.attempt.NodeSettings;
import io.flash.executor.channel.NodeChannel;
import io.flash.schema.Assignment;
import io.flash.schema.CapacityAction;
import io.flash.schema.CapacityDecision;
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
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.errors.WakeupException;
import org.jboss.logging.Logger;

/**
 * Many executor nodes in one process, without Docker: an attempt "runs" for a duration drawn from
 * {@link RunTimes}, then succeeds (or fails as an infrastructure failure at the configured rate).
 * Nodes heartbeat and report through the same {@link NodeChannel} and {@link RunningAttempts} as a
 * real node, so the framework cannot tell them apart; real nodes may serve the same framework. One
 * consumer reads every partition of the assignments topic and acts on records keyed by its nodes.
 * Elastic, it also starts the nodes its autoscaler launches and lets drained and reclaimed ones
 * leave (docs/autoscaling.md). A fleet that restarts forgets its attempts: its nodes come back with a new start time and the
 * framework reports what they ran as NODE_LOST, as for a real node that lost its containers.
 */
public final class SimulatedFleet implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(SimulatedFleet.class);
    /** Heartbeats go out in this many slices per interval, so 5,000 nodes do not heartbeat in one burst. */
    private static final int HEARTBEAT_SLICES = 20;
    /** The label an autoscaler's nodes carry (as the docker provider's do): only those it launched does it drain. */
    private static final Map<String, String> LAUNCHED = Map.of("launched-by", "autoscaler");

    /**
     * @param elastic      also start the nodes the autoscaler decides to launch (flash.capacity.decisions), drain them
     *                     when it says, and let them leave
     * @param reclaimEvery every this long one spot node gets a reclaim notice (zero: only when told)
     */
    public record Settings(int nodes, String idPrefix, RunTimes runTimes, double failureRate, long seed, boolean elastic,
                           Duration reclaimEvery) {
        public Settings(int nodes, String idPrefix, RunTimes runTimes, double failureRate, long seed) {
            this(nodes, idPrefix, runTimes, failureRate, seed, false, Duration.ZERO);
        }
    }

    private final Settings fleet;
    private final NodeSettings template;
    private final FlashTopics topics;
    private final String bootstrapServers;
    /** The live nodes by id (a stable order for the heartbeat slices); a node that leaves is removed and never comes back. */
    private final Map<String, SimNode> nodes = new ConcurrentSkipListMap<>();
    private final Set<String> departed = ConcurrentHashMap.newKeySet();
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
    private int partitions;
    private Thread pollThread, launchThread;
    private long heartbeatTick;

    public SimulatedFleet(Settings fleet, NodeSettings template, FlashTopics topics, String bootstrapServers) {
        this.fleet = fleet;
        this.template = template;
        this.topics = topics;
        this.bootstrapServers = bootstrapServers;
        this.random = new Random(fleet.seed());
        this.heartbeatInterval = template.heartbeatInterval();
        this.channel = new NodeChannel(topics, template.frameworkId(), bootstrapServers, 5);
        this.consumer = NodeChannel.assignmentConsumer(bootstrapServers, "flash-executor-" + fleet.idPrefix(), 50);
    }

    public void start() throws InterruptedException {
        List<TopicPartition> assigned = NodeChannel.assignmentPartitions(consumer, template.frameworkId(), Duration.ofSeconds(120));
        consumer.assign(assigned);
        Map<TopicPartition, OffsetAndMetadata> positions = new HashMap<>();
        for (TopicPartition p : assigned) positions.put(p, new OffsetAndMetadata(consumer.position(p)));
        consumer.commitSync(positions); // pinned before the first heartbeat: nothing assigned after it is skipped
        partitions = assigned.size();
        int width = String.valueOf(fleet.nodes()).length();
        for (int i = 1; i <= fleet.nodes(); i++) {
            add(template.withNodeId(fleet.idPrefix() + "-" + String.format("%0" + width + "d", i)));
        }
        long slice = Math.max(1, heartbeatInterval.toMillis() / HEARTBEAT_SLICES);
        heartbeats.scheduleAtFixedRate(this::heartbeatSlice, 0, slice, TimeUnit.MILLISECONDS);
        clock.scheduleAtFixedRate(this::leave, 1, 1, TimeUnit.SECONDS);
        if (!fleet.reclaimEvery().isZero()) {
            clock.scheduleAtFixedRate(this::reclaimOne, fleet.reclaimEvery().toMillis(), fleet.reclaimEvery().toMillis(), TimeUnit.MILLISECONDS);
        }
        pollThread = new Thread(this::pollLoop, "simulated-assignments");
        pollThread.start();
        if (fleet.elastic()) {
            launchThread = new Thread(this::launchLoop, "simulated-launches");
            launchThread.start();
        }
        LOG.infof("%d simulated nodes %s-* serve framework %s (%s cpu, %d MiB each; run time %s, failure rate %.3f)%s",
                fleet.nodes(), fleet.idPrefix(), template.frameworkId(), template.capacity().getCpu(),
                template.capacity().getMemoryBytes() >> 20, fleet.runTimes(), fleet.failureRate(),
                fleet.elastic() ? "; elastic: nodes come and go as the autoscaler decides" : "");
    }

    private void add(NodeSettings settings) {
        String id = settings.nodeId();
        if (departed.contains(id)) return; // a decision read again after the node left
        nodes.computeIfAbsent(id, k -> new SimNode(settings, KeyPartitions.of(id, partitions)));
    }

    /**
     * The autoscaler's decisions for this fleet's framework, from the topic's start (a launch is
     * idempotent by node id): a LAUNCH starts a node of the decided class, capacity and spot.
     */
    private void launchLoop() {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        var decisions = topics.capacityDecisions;
        try (KafkaConsumer<String, CapacityDecision> in = new KafkaConsumer<>(props, decisions.keySerde().deserializer(),
                decisions.valueSerde().deserializer())) {
            List<TopicPartition> all = in.partitionsFor(decisions.name(), Duration.ofSeconds(120)).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            in.assign(all);
            in.seekToBeginning(all);
            while (!stopping) {
                ConsumerRecords<String, CapacityDecision> records;
                try {
                    records = in.poll(Duration.ofMillis(200));
                } catch (RecordDeserializationException e) { // said and passed over: one bad record does not stop the fleet
                    LOG.errorf("passed over an unreadable decision at %s@%d: %s", e.topicPartition(), e.offset(), e.getMessage());
                    in.seek(e.topicPartition(), e.offset() + 1);
                    continue;
                }
                for (ConsumerRecord<String, CapacityDecision> record : records) {
                    CapacityDecision d = record.value();
                    if (d == null || !d.getFrameworkId().equals(template.frameworkId())) continue;
                    if (d.getAction() == CapacityAction.LAUNCH && d.getCapacity() != null) {
                        add(template.withNode(d.getNodeId(), d.getCapacity(), LAUNCHED, new NodeSettings.Pricing(d.getNodeClass(),
                                d.getSpot(), 0, template.pricing().notice())));
                    }
                }
            }
        } catch (WakeupException | InterruptException e) {
            // closing
        } catch (RuntimeException e) {
            LOG.error("simulated launches stopped", e);
        }
    }

    /** Once a second: reclaimed nodes whose notice ran out lose what they run and go; drained idle ones go. */
    private void leave() {
        long now = System.currentTimeMillis();
        for (SimNode node : List.copyOf(nodes.values())) {
            if (node.reclaimDue(now)) {
                for (String attemptId : node.running.ids()) lose(node, attemptId);
                gone(node, "reclaimed");
            } else if (node.drainedAndIdle()) {
                gone(node, "drained");
            }
        }
    }

    private void gone(SimNode node, String how) {
        nodes.remove(node.settings.nodeId());
        departed.add(node.settings.nodeId());
        LOG.infof("simulated node %s leaves (%s)", node.settings.nodeId(), how);
    }

    /** A spot node, chosen at random among those not leaving yet, gets a reclaim notice. */
    private void reclaimOne() {
        List<SimNode> spot = nodes.values().stream().filter(n -> n.settings.pricing().spot() && !n.leaving()).toList();
        if (spot.isEmpty()) return;
        SimNode node;
        synchronized (random) {
            node = spot.get(random.nextInt(spot.size()));
        }
        node.reclaim(System.currentTimeMillis() + template.pricing().notice().toMillis(),
                "simulated reclaim, one every " + fleet.reclaimEvery().toSeconds() + " s");
    }

    private void heartbeatSlice() {
        try {
            int slice = (int) (heartbeatTick++ % HEARTBEAT_SLICES);
            List<SimNode> order = List.copyOf(nodes.values());
            for (int i = slice; i < order.size(); i += HEARTBEAT_SLICES) {
                SimNode node = order.get(i);
                channel.heartbeat(node.running.heartbeat(node.settings, List.of(), node.partition, startedAt, node.unavailable()),
                        (metadata, error) -> {
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
                    SimNode node = nodes.get(record.key());
                    if (node == null) continue; // a real node's, or another fleet's
                    Assignment assignment = channel.decode(record);
                    if (assignment == null) continue;
                    if (assignment.getAction() == AssignmentAction.KILL) {
                        kill(node, assignment);
                    } else if (assignment.getAction() == AssignmentAction.RUN) {
                        run(node, assignment);
                    } else if (assignment.getAction() == AssignmentAction.DRAIN) {
                        node.drain(assignment.getReason() == null ? "asked to" : assignment.getReason());
                    } else if (assignment.getAction() == AssignmentAction.RECLAIM) {
                        node.reclaim(assignment.getLeaveAt() == null ? System.currentTimeMillis() : assignment.getLeaveAt(),
                                assignment.getReason() == null ? "reclaimed by its provider" : assignment.getReason());
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

    private void run(SimNode node, Assignment a) {
        String attemptId = a.getAttemptId();
        if (!node.running.claim(attemptId, new RunningAttempts.Attempt(a.getJobId(), a.getTaskId(), a.getTask().getResources()))) {
            return; // redelivered
        }
        String nodeId = node.settings.nodeId();
        channel.report(new AttemptRef(a.getJobId(), a.getTaskId(), attemptId).event(nodeId, AttemptState.STARTED).build());
        boolean fails;
        Duration runTime;
        synchronized (random) {
            fails = random.nextDouble() < fleet.failureRate();
            runTime = fleet.runTimes().next(random);
        }
        synchronized (node) { // the attempt is registered before it can finish, even after 0 ms
            node.finishing.put(attemptId, clock.schedule(() -> finish(node, a, fails), runTime.toMillis(), TimeUnit.MILLISECONDS));
        }
    }

    private void finish(SimNode node, Assignment a, boolean fails) {
        String nodeId = node.settings.nodeId(), attemptId = a.getAttemptId();
        synchronized (node) {
            if (node.finishing.remove(attemptId) == null) return; // killed meanwhile
        }
        {
            var done = new AttemptRef(a.getJobId(), a.getTaskId(), attemptId).event(nodeId, fails ? AttemptState.FAILED : AttemptState.SUCCEEDED);
            if (fails) {
                done.setExitCode(null).setFailureClass(FailureClass.INFRASTRUCTURE).setReason("simulated infrastructure failure");
            } else {
                done.setExitCode(0);
            }
            channel.report(done.build());
            node.running.release(attemptId);
            finished.incrementAndGet();
        }
    }

    private void kill(SimNode node, Assignment a) {
        if (!stop(node, a.getAttemptId())) return;
        channel.report(AttemptRef.of(a).event(node.settings.nodeId(), AttemptState.CANCELLED)
                .setFailureClass(FailureClass.CANCELLED).setReason(a.getReason() == null ? "killed by the framework" : a.getReason()).build());
        node.running.release(a.getAttemptId());
    }

    /** Stops an attempt before its run time is over; false when it has already ended (or was stopped). */
    private static boolean stop(SimNode node, String attemptId) {
        ScheduledFuture<?> finishing;
        synchronized (node) {
            finishing = node.finishing.remove(attemptId);
        }
        if (finishing == null) return false;
        finishing.cancel(false);
        return true;
    }

    /** What a reclaimed spot node still runs when its notice runs out: the platform's loss, retried free. */
    private void lose(SimNode node, String attemptId) {
        RunningAttempts.Attempt a = node.running.get(attemptId);
        if (a == null || !stop(node, attemptId)) return;
        channel.report(new AttemptRef(a.jobId(), a.taskId(), attemptId).event(node.settings.nodeId(), AttemptState.FAILED)
                .setExitCode(null).setFailureClass(FailureClass.SPOT_RECLAIMED).setReason(node.unavailable()).build());
        node.running.release(attemptId);
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
        // An elastic fleet at zero nodes has nothing to heartbeat: it is healthy while it reads its assignments.
        return pollThread != null && pollThread.isAlive() && (nodes.isEmpty() || silence < Math.max(10_000, 3 * heartbeatInterval.toMillis()));
    }

    public int runningAttempts() {
        int n = 0;
        for (SimNode node : nodes.values()) n += node.running.size();
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
            if (launchThread != null) launchThread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        channel.close();
    }
}
