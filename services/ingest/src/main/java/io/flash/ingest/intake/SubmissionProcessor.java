package io.flash.ingest.intake;

import io.flash.common.topics.TopicNames;
import io.flash.common.units.Quantities;
import io.flash.ingest.app.IngestConfig;
import io.flash.ingest.validation.JobValidator;
import io.flash.ingest.validation.Limits;
import io.flash.ingest.validation.ValidationResult;
import io.flash.ingest.view.FrameworkLimits;
import io.flash.schema.JobSubmission;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.reactive.messaging.kafka.api.IncomingKafkaRecordMetadata;
import io.smallrye.reactive.messaging.kafka.api.OutgoingKafkaRecordMetadata;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.avro.specific.SpecificRecord;
import org.eclipse.microprofile.config.inject.ConfigProperty;
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

    public SubmissionProcessor(FrameworkLimits frameworkLimits, SubmitterTokens submitters,
                               IngestConfig config,
                               @ConfigProperty(name = "quarkus.oidc.tenant-enabled") boolean secure) {
        this.decoder = new SubmissionDecoder(config.registry().url());
        this.submitters = submitters;
        Limits defaults = Limits.defaults();
        IngestConfig.Ingest ingest = config.ingest();
        Limits limits = new Limits(ingest.maxTasks(), ingest.maxCpu(), Quantities.bytes(config.memory().maxTask()), defaults.maxAttempts(),
                defaults.defaultCpu(), defaults.defaultMemoryBytes(), ingest.maxShards(), ingest.maxSpecBytes());
        this.intake = new Intake(new JobValidator(limits), ingest.maxSpecBytes(), frameworkLimits::largest, secure);
    }

    /** The decision this processor would take on the submission, for a door that must answer at once (TES). */
    public ValidationResult check(JobSubmission submission, String submissionId, long now) {
        return intake.check(submission, submissionId, now);
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
            LOG.infof("accepted submission %s as %s (%d tasks)", a.job().getSubmissionId(), a.job().getJobId(), a.job().getTasks().size());
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
