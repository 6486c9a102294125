package io.flash.autoscaler.kafka;

import io.flash.autoscaler.core.NodeProvider;
import io.flash.common.topics.FlashTopics;
import io.flash.common.deadletter.SetAside;
import io.flash.schema.Assignment;
import io.flash.schema.AssignmentAction;
import io.flash.schema.CapacityAction;
import io.flash.schema.CapacityDecision;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jboss.logging.Logger;

/**
 * Carries out the published decisions, at least once, each idempotently: a LAUNCH through the
 * {@link NodeProvider} (one node per node id), a DRAIN as an assignment on the node's own partition
 * (the node leaves once idle). Its position is committed after a decision is done, so a restart
 * redoes at most the last one. A decision that keeps failing is given up after a few tries, said in
 * the log and on flash.dead-letter, as is a record that cannot be read; the planner gives the launch
 * up too and decides again.
 */
public final class DecisionRunner implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(DecisionRunner.class);
    static final int TRIES = 3;

    private final FlashTopics topics;
    private final NodeProvider provider;
    private final KafkaConsumer<String, byte[]> consumer;
    private final SetAside<CapacityDecision> decisions;
    private final KafkaProducer<String, Assignment> producer;
    private final KafkaProducer<String, byte[]> deadLetters;
    private final Thread thread;
    private volatile boolean stopping;

    /**
     * @param sessionTimeout how soon a runner that stopped answering (killed, frozen) loses the decisions to its
     *                       successor: the stream threads' own, not the client's default 45 s
     */
    public DecisionRunner(FlashTopics topics, NodeProvider provider, String bootstrapServers, Duration sessionTimeout) {
        this.topics = topics;
        this.provider = provider;
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "flash-autoscaler-provider");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, (int) sessionTimeout.toMillis());
        props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, (int) Math.max(1, sessionTimeout.toMillis() / 3));
        // Bytes, decoded here: a record that cannot be read is set aside with its bytes, not skipped unseen.
        consumer = new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer());
        Properties out = new Properties();
        out.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        producer = new KafkaProducer<>(out, topics.frameworkAssignments("any").keySerde().serializer(),
                topics.frameworkAssignments("any").valueSerde().serializer());
        deadLetters = new KafkaProducer<>(out, new StringSerializer(), new ByteArraySerializer());
        decisions = new SetAside<>("autoscaler", "decision", topics.capacityDecisions.valueSerde().deserializer(), deadLetters, LOG::error);
        thread = new Thread(this::run, "capacity-decisions");
    }

    public void start() {
        consumer.subscribe(List.of(topics.capacityDecisions.name()));
        thread.start();
    }

    private void run() {
        try {
            while (!stopping) {
                try {
                    for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                        CapacityDecision decision = decisions.decode(record);
                        if (decision != null && !carryOut(decision)) {
                            decisions.setAside(record, decision.getAction() + " " + decision.getNodeId() + " failed " + TRIES + " times");
                        }
                    }
                    consumer.commitSync();
                } catch (WakeupException e) {
                    throw e;
                } catch (KafkaException e) {
                    LOG.warnf("the decision runner could not read or commit (%s); trying again in 1 s", e.getMessage());
                    Thread.sleep(1_000);
                }
            }
        } catch (WakeupException e) {
            // closing
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.error("the decision runner stopped", e);
        } finally {
            consumer.close(Duration.ofSeconds(5));
        }
    }

    /** @return whether it was done (false: given up after {@link #TRIES}) */
    private boolean carryOut(CapacityDecision decision) {
        for (int attempt = 1; attempt <= TRIES; attempt++) {
            try {
                if (decision.getAction() == CapacityAction.LAUNCH) provider.launch(decision);
                else drain(decision);
                LOG.infof("%s %s %s done (%s)", decision.getFrameworkId(), decision.getAction(), decision.getNodeId(), provider.name());
                return true;
            } catch (Exception e) {
                LOG.warnf("%s %s %s failed (try %d of %d): %s", decision.getFrameworkId(), decision.getAction(), decision.getNodeId(),
                        attempt, TRIES, e.getMessage());
            }
        }
        LOG.errorf("%s %s %s given up after %d tries; the autoscaler gives the launch up after its launch timeout and decides again",
                decision.getFrameworkId(), decision.getAction(), decision.getNodeId(), TRIES);
        return false;
    }

    private void drain(CapacityDecision decision) throws Exception {
        Integer partition = decision.getAssignmentPartition();
        producer.send(new ProducerRecord<>(topics.frameworkAssignments(decision.getFrameworkId()).name(), partition,
                decision.getNodeId(), Assignment.newBuilder().setNodeId(decision.getNodeId()).setAction(AssignmentAction.DRAIN)
                .setJobId("").setTaskId("").setAttemptId("").setReason(decision.getReason())
                .setAssignedAt(System.currentTimeMillis()).build())).get();
    }

    @Override
    public void close() {
        stopping = true;
        consumer.wakeup();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        producer.close(Duration.ofSeconds(5));
        deadLetters.close(Duration.ofSeconds(5));
    }
}
