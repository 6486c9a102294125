package io.flash.ingest.intake;

import io.apicurio.registry.rest.client.models.ProblemDetails;
import io.flash.common.serde.DecodeFailures;
import io.flash.common.serde.RegistryValueSerdes;
import io.flash.schema.JobSubmission;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;

import java.time.Duration;

/**
 * Reads a raw ingest record, and says in words why when it cannot (the shared typed deserializer:
 * bounded allocations, whole records only, unknown schema ids named). A registry that does not
 * answer is asked again a few times before the record is given up, so an outage of seconds does not
 * turn good submissions into rejections.
 */
public final class SubmissionDecoder implements AutoCloseable {

    /** Thrown for a record that is not a JobSubmission; the message is the rejection reason. */
    public static final class UnreadableSubmission extends Exception {
        UnreadableSubmission(String message) {
            super(message);
        }
    }

    /** Pauses between asks of a registry that did not answer: about 15 s in all. */
    private static final Duration[] REGISTRY_RETRIES = {Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2),
            Duration.ofSeconds(4), Duration.ofSeconds(8)};

    private final Deserializer<JobSubmission> deserializer;

    public SubmissionDecoder(String registryUrl) {
        deserializer = new RegistryValueSerdes(registryUrl).forValue(JobSubmission.class).deserializer();
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
                if (!registryUnreachable(e)) throw new UnreadableSubmission(e.getMessage());
                if (attempt >= REGISTRY_RETRIES.length) {
                    throw new UnreadableSubmission("the schema registry did not answer for schema " + DecodeFailures.schemaId(value)
                            + " (" + e.getMessage() + "); submit again once it is up");
                }
                Thread.sleep(REGISTRY_RETRIES[attempt].toMillis());
            }
        }
    }

    /** The registry failed (5xx) or could not be reached (not: the bytes ended early, which is an IOException too). */
    private static boolean registryUnreachable(Throwable e) {
        ProblemDetails problem = DecodeFailures.registryProblem(e);
        if (problem != null) return problem.getStatus() == null || problem.getStatus() >= 500;
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof java.net.SocketException || t instanceof java.net.SocketTimeoutException
                    || t instanceof java.net.UnknownHostException || t instanceof java.net.http.HttpTimeoutException
                    || t instanceof java.util.concurrent.TimeoutException) return true;
        }
        return false;
    }

    @Override
    public void close() {
        deserializer.close();
    }
}
