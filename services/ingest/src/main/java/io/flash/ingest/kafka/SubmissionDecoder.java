package io.flash.ingest.kafka;

import io.flash.common.serde.DecodeFailures;
import io.flash.common.serde.RegistryValueSerdes;
import io.flash.ingest.core.UnreadableSubmission;
import io.flash.schema.JobAccepted;
import io.flash.schema.JobRejected;
import io.flash.schema.JobSubmission;
import java.time.Duration;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.jboss.logging.Logger;

/**
 * Ingest's registry work, on the worker thread that decides (never on the producer's thread):
 * reads a raw ingest record, and says in words why when it cannot (the shared typed deserializer:
 * bounded allocations, whole records only, unknown schema ids named), and writes the decision's
 * bytes. Every registry call is bounded in time; a registry that does not answer is asked again —
 * a few times (about 15 s) before a submission is given up, so an outage of seconds does not turn
 * good submissions into rejections; for minutes before a decision is (it has been taken: losing it
 * would lose the submission).
 */
public final class SubmissionDecoder implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(SubmissionDecoder.class);

    /** Pauses between asks of a registry that did not answer: about 15 s in all. */
    private static final Duration[] REGISTRY_RETRIES = {Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2),
            Duration.ofSeconds(4), Duration.ofSeconds(8)};
    /** How long a decision waits for the registry before it is failed (below the consumer's 10-minute ack bound). */
    private static final Duration ENCODE_PATIENCE = Duration.ofMinutes(5);

    private final Deserializer<JobSubmission> deserializer;
    private final Serializer<JobAccepted> accepted;
    private final Serializer<JobRejected> rejected;

    public SubmissionDecoder(String registryUrl) {
        RegistryValueSerdes serdes = new RegistryValueSerdes(registryUrl);
        deserializer = serdes.forValue(JobSubmission.class).deserializer();
        accepted = serdes.forValue(JobAccepted.class).serializer();
        rejected = serdes.forValue(JobRejected.class).serializer();
    }

    public JobSubmission decode(String topic, Headers headers, byte[] value) throws UnreadableSubmission, InterruptedException {
        String notWire = DecodeFailures.wireFormatProblem(value);
        if (notWire != null) throw new UnreadableSubmission(notWire);
        for (int attempt = 0; ; attempt++) {
            try {
                JobSubmission submission = deserializer.deserialize(topic, headers, value);
                if (submission == null) throw new UnreadableSubmission("the value decoded to nothing");
                return submission;
            } catch (RuntimeException e) {
                if (!DecodeFailures.registryUnreachable(e)) throw new UnreadableSubmission(e.getMessage());
                if (attempt >= REGISTRY_RETRIES.length) {
                    throw new UnreadableSubmission("the schema registry did not answer for schema " + DecodeFailures.schemaId(value)
                            + " (" + e.getMessage() + "); submit again once it is up");
                }
                Thread.sleep(REGISTRY_RETRIES[attempt].toMillis());
            }
        }
    }

    /** The bytes of a decision for its topic, waiting for a registry that does not answer (bounded calls). */
    public byte[] encode(String topic, SpecificRecord decision) throws InterruptedException {
        long deadline = System.nanoTime() + ENCODE_PATIENCE.toNanos();
        for (int attempt = 0; ; attempt++) {
            try {
                return decision instanceof JobAccepted a ? accepted.serialize(topic, a) : rejected.serialize(topic, (JobRejected) decision);
            } catch (RuntimeException e) {
                if (!DecodeFailures.registryUnreachable(e) || System.nanoTime() > deadline) throw e;
                Duration pause = REGISTRY_RETRIES[Math.min(attempt, REGISTRY_RETRIES.length - 1)];
                LOG.warnf("the schema registry did not answer while writing a decision to %s (%s); asking again in %d ms",
                        topic, e.getMessage(), pause.toMillis());
                Thread.sleep(pause.toMillis());
            }
        }
    }

    @Override
    public void close() {
        deserializer.close();
        accepted.close();
        rejected.close();
    }
}
