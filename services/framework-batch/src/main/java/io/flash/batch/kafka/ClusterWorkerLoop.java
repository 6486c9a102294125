package io.flash.batch.kafka;

import io.flash.batch.cluster.Cluster;
import io.flash.batch.core.ClusterWorker;
import io.flash.common.access.KafkaLogin;
import io.flash.common.deadletter.SetAside;
import io.flash.common.setup.KafkaGrants;
import io.flash.common.topics.FlashTopics;
import io.flash.common.topics.Topic;
import io.flash.schema.ClusterCommand;
import io.flash.schema.ClusterReport;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/**
 * Runs a {@link ClusterWorker} on its own thread, outside Kafka Streams: the framework's cluster
 * commands in (a consumer group, so the shards' partitions are shared among the instances), its
 * reports out to each shard's partition, and one look at the cluster per tick. A batch's position
 * is committed only once its reports are written, so a worker killed mid-call redoes the batch on
 * restart, and the worker's look-before-submit makes that harmless. A record that cannot be read
 * goes to flash.dead-letter with why; none stops the loop.
 */
public final class ClusterWorkerLoop implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(ClusterWorkerLoop.class);

    /**
     * The shortest wait for commands, even with a look due: a group rebalance advances only inside
     * poll, one request and its answer at a time, so with looks of seconds back to back (a cluster
     * whose jobs end often) a poll of zero left a joining instance without shards for 40 s.
     */
    private static final Duration LEAST_POLL = Duration.ofMillis(100);

    /**
     * How old the last look may grow within a batch. Meanwhile the shards heartbeat on their own
     * (after a tick and a half without a look), offering no free room until a look answers again;
     * {@code flash.batch.down-after} is far longer.
     */
    private static final Duration BETWEEN_COMMANDS = Duration.ofSeconds(10);

    private final Topic<String, ClusterCommand> commands;
    private final Topic<String, ClusterReport> reports;
    private final Duration tick;
    private final Duration watchInterval;
    private final Clock clock;
    private final KafkaConsumer<String, byte[]> consumer;
    private final SetAside<ClusterCommand> decoder;
    private final KafkaProducer<String, ClusterReport> producer;
    private final KafkaProducer<String, byte[]> deadLetters;
    private final ClusterWorker worker;
    private final List<Future<RecordMetadata>> sent = new ArrayList<>();
    private final Thread thread;
    private volatile boolean stopping;
    private long nextLook;
    private long lastLook;

    /**
     * @param tick          how often the cluster is looked at
     * @param watchInterval how often the ended marks are listed; a new one brings the next look forward
     * @param sessionTimeout how soon a worker that stopped answering loses its shards to the others:
     *                       the stream threads' own, so a killed instance's shards never wait for
     *                       hands longer than for their stream tasks (the consumer's default is 45 s)
     */
    public ClusterWorkerLoop(FlashTopics topics, String frameworkId, String bootstrapServers, Duration tick, Duration watchInterval,
                             Duration sessionTimeout, int maxCommandsPerBatch, ClusterWorker.Specs specs, Cluster cluster,
                             ClusterWorker.EndedMarks endedMarks, ClusterWorker.StartedMarks startedMarks, Clock clock) {
        this.commands = topics.frameworkClusterCommands(frameworkId);
        this.reports = topics.frameworkClusterReports(frameworkId);
        this.tick = tick;
        this.watchInterval = watchInterval;
        this.clock = clock;
        Properties c = KafkaLogin.fromEnvironment().addTo(new Properties());
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        c.put(ConsumerConfig.GROUP_ID_CONFIG, KafkaGrants.clusterWorkerGroup(frameworkId));
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"); // only what a shard's transaction committed
        c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, maxCommandsPerBatch);
        c.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, (int) sessionTimeout.toMillis());
        c.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, (int) Math.max(1, sessionTimeout.toMillis() / 3));
        consumer = new KafkaConsumer<>(c, new StringDeserializer(), new ByteArrayDeserializer());
        Properties p = KafkaLogin.fromEnvironment().addTo(new Properties());
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4"); // a look lists every job of a shard: names compress well
        producer = new KafkaProducer<>(p, reports.keySerde().serializer(), reports.valueSerde().serializer());
        deadLetters = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
        decoder = new SetAside<>("framework-batch", "cluster command", commands.valueSerde().deserializer(), deadLetters, LOG::error);
        worker = new ClusterWorker(frameworkId, cluster, specs, endedMarks, startedMarks, this::send);
        thread = new Thread(this::run, "cluster-worker-" + frameworkId);
    }

    public void start() {
        consumer.subscribe(List.of(commands.name()), new ConsumerRebalanceListener() {
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                worker.revoked(partitions.stream().map(TopicPartition::partition).toList());
            }

            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                worker.assigned(partitions.stream().map(TopicPartition::partition).toList());
                LOG.infof("cluster worker serves shards %s", worker.shards());
            }

            public void onPartitionsLost(Collection<TopicPartition> partitions) {
                onPartitionsRevoked(partitions);
            }
        });
        thread.start();
    }

    private void send(ClusterReport report) {
        sent.add(producer.send(new ProducerRecord<>(reports.name(), report.getShard(), Integer.toString(report.getShard()), report)));
    }

    private void run() {
        long nextWatch = 0;
        try {
            while (!stopping) {
                try {
                    long wait = Math.max(LEAST_POLL.toMillis(), Math.min(nextLook, nextWatch) - clock.millis());
                    List<ClusterCommand> batch = new ArrayList<>();
                    for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(wait))) {
                        ClusterCommand command = decoder.decode(record);
                        if (command != null) batch.add(command);
                    }
                    if (!batch.isEmpty()) worker.carryOut(batch, clock.millis(), this::lookIfOverdue);
                    if (clock.millis() >= nextWatch) {
                        if (worker.somethingEnded()) nextLook = 0; // an end is reported now, not at the tick
                        nextWatch = clock.millis() + watchInterval.toMillis();
                    }
                    lookIfDue();
                    awaitSent();
                    consumer.commitSync(); // after the reports: a batch is redone rather than lost
                } catch (WakeupException e) {
                    throw e;
                } catch (KafkaException | ExecutionException e) {
                    sent.clear();
                    LOG.warnf("the cluster worker could not write or commit (%s); the batch is redone", e.getMessage());
                    Thread.sleep(1_000);
                    rewind();
                }
            }
        } catch (WakeupException e) {
            // closing
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.error("the cluster worker stopped", e);
        } finally {
            consumer.close(Duration.ofSeconds(5));
        }
    }

    /** One look per tick: the shards' heartbeats ride on the looks. */
    private void lookIfDue() {
        if (clock.millis() < nextLook) return;
        worker.look(clock.millis());
        lastLook = clock.millis();
        nextLook = lastLook + tick.toMillis();
    }

    /**
     * Between the commands of a batch, a look only once the last is {@link #BETWEEN_COMMANDS} old:
     * a look costs a Grid Engine seconds when its jobs end often (qstat, qacct, qhost), and one
     * every tick between submissions left a batch of six taking half a minute, and the group's
     * rebalance, which advances only when the loop polls, waiting as long.
     */
    private void lookIfOverdue() {
        if (clock.millis() >= lastLook + Math.max(tick.toMillis(), BETWEEN_COMMANDS.toMillis())) lookIfDue();
    }

    /** Back to the last committed positions, so the batch whose reports or commit failed is read again. */
    private void rewind() {
        try {
            Set<TopicPartition> assigned = consumer.assignment();
            Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(assigned);
            for (TopicPartition tp : assigned) {
                OffsetAndMetadata at = committed.get(tp);
                if (at != null) consumer.seek(tp, at);
                else consumer.seekToBeginning(List.of(tp));
            }
        } catch (KafkaException e) {
            LOG.warnf("the cluster worker could not rewind (%s); it tries again", e.getMessage());
        }
    }

    private void awaitSent() throws ExecutionException, InterruptedException {
        producer.flush();
        for (Future<RecordMetadata> f : sent) f.get();
        sent.clear();
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
