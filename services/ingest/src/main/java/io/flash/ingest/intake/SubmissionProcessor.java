package io.flash.ingest.intake;

import io.flash.common.deadletter.DeadLetters;
import io.flash.common.ids.JobIds;
import io.flash.common.topics.TopicNames;
import io.flash.ingest.validation.JobValidator;
import io.flash.ingest.validation.Limits;
import io.flash.ingest.validation.ValidationResult;
import io.flash.schema.FieldError;
import io.flash.schema.JobRejected;
import io.flash.schema.JobSubmission;
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

import java.util.List;
import java.util.UUID;

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
    private final JobValidator validator;
    private final int maxSpecBytes;

    private final io.flash.ingest.view.FrameworkLimits frameworkLimits;

    public SubmissionProcessor(io.flash.ingest.view.FrameworkLimits frameworkLimits,
                               @ConfigProperty(name = "flash.registry.url") String registryUrl,
                               @ConfigProperty(name = "flash.ingest.max-tasks") int maxTasks,
                               @ConfigProperty(name = "flash.ingest.max-cpu") double maxCpu,
                               @ConfigProperty(name = "flash.memory.max-task") String maxTaskMemory,
                               @ConfigProperty(name = "flash.ingest.max-shards") int maxShards,
                               @ConfigProperty(name = "flash.ingest.max-spec-bytes") int maxSpecBytes) {
        this.frameworkLimits = frameworkLimits;
        this.decoder = new SubmissionDecoder(registryUrl);
        Limits defaults = Limits.defaults();
        this.maxSpecBytes = maxSpecBytes;
        this.validator = new JobValidator(new Limits(maxTasks, maxCpu, io.flash.common.units.Quantities.bytes(maxTaskMemory),
                defaults.maxAttempts(),
                defaults.defaultCpu(), defaults.defaultMemoryBytes(), maxShards, maxSpecBytes));
    }

    /** The decision this processor would take on the submission, for a door that must answer at once (TES). */
    public ValidationResult check(JobSubmission submission, String submissionId, long now) {
        return validator.validate(submission, JobIds.forSubmission(submissionId), submissionId, now, frameworkLimits.largest());
    }

    /**
     * One decision per record, whatever the record holds: any failure of this one record, an
     * {@code Error} included, becomes its rejection, so the channel never stops. On a worker
     * thread, in order: decoding may ask the schema registry over HTTP, which must not block an
     * event loop.
     */
    @Incoming("submissions")
    @Outgoing("decisions")
    @io.smallrye.common.annotation.Blocking
    public Message<SpecificRecord> decide(Message<byte[]> message) {
        IncomingKafkaRecordMetadata<?, ?> in = message.getMetadata(IncomingKafkaRecordMetadata.class).orElseThrow();
        String key = in.getKey() instanceof String s && !s.isBlank() ? s : null;
        long now = System.currentTimeMillis();
        try {
            return decide(message, in, key, now);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return reject(message, in, key, null, List.of(new FieldError("(record)",
                    "ingest stopped while reading this record; submit it again")), now);
        } catch (Exception | StackOverflowError | OutOfMemoryError e) {
            LOG.errorf(e, "record %s-%d@%d could not be handled; rejecting it", in.getTopic(), in.getPartition(), in.getOffset());
            return reject(message, in, key, null, List.of(new FieldError("(record)", "could not be handled ("
                    + e.getClass().getSimpleName() + ": " + DeadLetters.rootMessage(e) + "); nothing of it was accepted")), now);
        }
    }

    private Message<SpecificRecord> decide(Message<byte[]> message, IncomingKafkaRecordMetadata<?, ?> in, String key, long now)
            throws InterruptedException {
        if (message.getPayload() != null && message.getPayload().length > maxSpecBytes) {
            return reject(message, in, key, null, List.of(new FieldError("(record)", "the job spec is " + message.getPayload().length
                    + " bytes, more than the limit of " + maxSpecBytes + "; scatter over a range or split the job")), now);
        }
        JobSubmission submission;
        try {
            submission = decoder.decode(in.getTopic(), in.getHeaders(), message.getPayload());
        } catch (SubmissionDecoder.UnreadableSubmission e) {
            LOG.warnf("rejected unreadable record %s-%d@%d: %s", in.getTopic(), in.getPartition(), in.getOffset(), e.getMessage());
            return reject(message, in, key, null, List.of(new FieldError("(record)", e.getMessage())), now);
        }
        String submissionId = submission.getSubmissionId() != null && !submission.getSubmissionId().isBlank()
                ? submission.getSubmissionId() : key != null ? key : UUID.randomUUID().toString();
        ValidationResult result = check(submission, submissionId, now);
        if (!result.isAccepted()) {
            LOG.infof("rejected submission %s: %s", submissionId, result.errors());
            return reject(message, in, submissionId, submission.getName(), result.errors(), now);
        }
        LOG.infof("accepted submission %s as %s (%d tasks)", submissionId, result.accepted().getJobId(),
                result.accepted().getTasks().size());
        return message.<SpecificRecord>withPayload(result.accepted()).addMetadata(OutgoingKafkaRecordMetadata.<String>builder()
                .withTopic(TopicNames.JOBS_ACCEPTED).withKey(result.accepted().getJobId()).build());
    }

    private Message<SpecificRecord> reject(Message<byte[]> message, IncomingKafkaRecordMetadata<?, ?> in, String submissionId,
                                           String jobName, List<FieldError> reasons, long now) {
        JobRejected rejected = JobRejected.newBuilder()
                .setSubmissionId(submissionId)
                .setJobName(jobName)
                .setReasons(reasons)
                .setSourceTopic(in.getTopic())
                .setSourcePartition(in.getPartition())
                .setSourceOffset(in.getOffset())
                .setRejectedAt(now)
                .build();
        String key = submissionId != null ? submissionId : in.getTopic() + "-" + in.getPartition() + "@" + in.getOffset();
        return message.<SpecificRecord>withPayload(rejected).addMetadata(OutgoingKafkaRecordMetadata.<String>builder()
                .withTopic(TopicNames.JOBS_REJECTED).withKey(key).build());
    }

    @PreDestroy
    void close() {
        decoder.close();
    }
}
