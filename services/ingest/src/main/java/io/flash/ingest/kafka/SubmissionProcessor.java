package io.flash.ingest.kafka;

import io.flash.common.topics.TopicNames;
import io.flash.ingest.app.IngestConfig;
import io.flash.ingest.core.Intake;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.reactive.messaging.kafka.api.IncomingKafkaRecordMetadata;
import io.smallrye.reactive.messaging.kafka.api.OutgoingKafkaRecordMetadata;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.avro.specific.SpecificRecord;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.eclipse.microprofile.reactive.messaging.Outgoing;
import org.jboss.logging.Logger;

/**
 * Reads every record of the ingest topic as raw bytes, so that nothing a client publishes can stop
 * this consumer: each record ends as exactly one JobAccepted or one JobRejected. The incoming record
 * is acknowledged only after the decision is written (at-least-once; the job id is derived from the
 * submission id, so a redelivered record names the same job).
 */
@ApplicationScoped
public class SubmissionProcessor {

    private static final Logger LOG = Logger.getLogger(SubmissionProcessor.class);

    private final SubmissionDecoder decoder;
    private final Intake intake;
    private final SubmitterTokens submitters;

    public SubmissionProcessor(Intake intake, SubmitterTokens submitters, IngestConfig config) {
        this.decoder = new SubmissionDecoder(config.registry().url());
        this.submitters = submitters;
        this.intake = intake;
    }

    /**
     * One decision per record (Intake), with its bytes; on a worker thread, in order: decoding and
     * encoding may ask the registry over HTTP, which the producer's own thread must never wait for.
     */
    @Incoming("submissions")
    @Outgoing("decisions")
    @Blocking
    public Message<byte[]> decide(Message<byte[]> message) throws InterruptedException {
        IncomingKafkaRecordMetadata<?, ?> in = message.getMetadata(IncomingKafkaRecordMetadata.class).orElseThrow();
        Intake.Source from = new Intake.Source(in.getTopic(), in.getPartition(), in.getOffset(),
                in.getKey() instanceof String s ? s : null);
        Intake.Decision decision = intake.decide(from, submitters.of(in.getHeaders()), message.getPayload(), bytes -> decoder.decode(in.getTopic(), in.getHeaders(), bytes),
                System.currentTimeMillis());
        log(from, decision);
        String topic = decision instanceof Intake.Accepted ? TopicNames.JOBS_ACCEPTED : TopicNames.JOBS_REJECTED;
        String key = decision instanceof Intake.Accepted a ? a.job().getJobId() : ((Intake.Rejected) decision).key();
        SpecificRecord value = decision instanceof Intake.Accepted a ? a.job() : ((Intake.Rejected) decision).rejection();
        return message.withPayload(decoder.encode(topic, value)).addMetadata(OutgoingKafkaRecordMetadata.<String>builder()
                .withTopic(topic).withKey(key).build());
    }

    private static void log(Intake.Source from, Intake.Decision decision) {
        if (decision instanceof Intake.Accepted a) {
            // An acceptance is on flash.jobs.accepted already; a line per job was an eighth of ingest's CPU under load.
            LOG.debugf("accepted submission %s as %s (%d tasks)", a.job().getSubmissionId(), a.job().getJobId(), a.job().getTasks().size());
        } else if (decision instanceof Intake.Rejected r && r.failure() != null) {
            LOG.errorf(r.failure(), "record %s-%d@%d could not be handled; rejected it", from.topic(), from.partition(), from.offset());
        } else if (decision instanceof Intake.Rejected r) {
            LOG.infof("rejected %s (record %s-%d@%d): %s", r.key(), from.topic(), from.partition(), from.offset(), r.rejection().getReasons());
        }
    }

    @PreDestroy
    void close() {
        decoder.close();
    }
}
