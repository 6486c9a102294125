package io.flash.ingest.core;

import io.flash.common.client.JobClient;
import io.flash.common.deadletter.DeadLetters;
import io.flash.common.ids.JobIds;
import io.flash.ingest.core.access.Access;
import io.flash.ingest.core.access.Caller;
import io.flash.ingest.core.validation.JobValidator;
import io.flash.ingest.core.validation.LargestNode;
import io.flash.ingest.core.validation.ValidationResult;
import io.flash.schema.FieldError;
import io.flash.schema.JobAccepted;
import io.flash.schema.JobRejected;
import io.flash.schema.JobSubmission;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * The ingest topic's decision, with no messaging types: every record — whatever its bytes, whatever
 * the decoder or validator throws, an {@code Error} included — ends as exactly one acceptance or one
 * rejection that names the field and the reason. The Kafka adapter (SubmissionProcessor) and the HTTP and TES doors use it.
 */
public final class Intake {

    private static final String TOKEN_HEADER = JobClient.TOKEN_HEADER;

    /** Where a record came from, as a rejection must say. */
    public record Source(String topic, int partition, long offset, String key) {
    }

    /**
     * Who published the record, as far as Flash can tell: anyone in the open mode; in the secure mode
     * the user of the access token the record carries, or why there is none Flash trusts.
     */
    public sealed interface Submitter permits Anyone, Verified, Unverified {
    }

    public record Anyone() implements Submitter {
    }

    public record Verified(Caller caller) implements Submitter {
    }

    /** @param reason what is wrong with the token and what to do, in words (never the token) */
    public record Unverified(String reason) implements Submitter {
    }

    public static final Submitter ANYONE = new Anyone();

    /** Reads a record's bytes as a submission (the registry's decoder in production). */
    @FunctionalInterface
    public interface Decoder {
        JobSubmission decode(byte[] payload) throws UnreadableSubmission, InterruptedException;
    }

    /** One record's outcome: an acceptance keyed by its job id, or a rejection keyed by its submission id. */
    public sealed interface Decision permits Accepted, Rejected {
    }

    public record Accepted(JobAccepted job) implements Decision {
    }

    /** @param failure what broke the intake on this record (a bug to log with its stack), or null for a plain rejection */
    public record Rejected(String key, JobRejected rejection, Throwable failure) implements Decision {
        public Rejected(String key, JobRejected rejection) {
            this(key, rejection, null);
        }
    }

    private final JobValidator validator;
    private final int maxSpecBytes;
    private final Supplier<Optional<LargestNode>> largestNode;
    private final boolean ownerScoped;

    /** @param ownerScoped the secure mode: a submission id names a job of its owner only ({@link JobIds#forSubmission(String, String)}) */
    public Intake(JobValidator validator, int maxSpecBytes, Supplier<Optional<LargestNode>> largestNode, boolean ownerScoped) {
        this.validator = validator;
        this.maxSpecBytes = maxSpecBytes;
        this.largestNode = largestNode;
        this.ownerScoped = ownerScoped;
    }

    /**
     * What a door that must answer at once (HTTP, TES) would get for the submission, the size limit
     * included: a door that publishes only what passes never hands out an id that does not resolve.
     */
    public ValidationResult check(JobSubmission submission, String submissionId, long now) {
        int bytes = SpecBytes.onTheTopic(submission);
        if (bytes > maxSpecBytes) {
            return ValidationResult.rejected(List.of(new FieldError("(body)", tooLarge(bytes))));
        }
        String jobId = ownerScoped ? JobIds.forSubmission(submission.getOwner(), submissionId) : JobIds.forSubmission(submissionId);
        return validator.validate(submission, jobId, submissionId, now, largestNode.get());
    }

    public int maxSpecBytes() {
        return maxSpecBytes;
    }

    private String tooLarge(int bytes) {
        return "the job spec is " + bytes + " bytes, more than the limit of " + maxSpecBytes
                + " (flash.ingest.max-spec-bytes); scatter over a range, split the job, or give large inputs as files (url)";
    }

    public Decision decide(Source from, byte[] payload, Decoder decoder, long now) {
        return decide(from, ANYONE, payload, decoder, now);
    }

    public Decision decide(Source from, Submitter submitter, byte[] payload, Decoder decoder, long now) {
        String key = from.key() != null && !from.key().isBlank() ? from.key() : null;
        try {
            return decideOrThrow(from, submitter, key, payload, decoder, now);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return reject(from, key, null, List.of(new FieldError("(record)", "ingest stopped while reading this record; submit it again")), now);
        } catch (Exception | StackOverflowError | OutOfMemoryError e) {
            Rejected rejected = reject(from, key, null, List.of(new FieldError("(record)", "could not be handled ("
                    + e.getClass().getSimpleName() + ": " + DeadLetters.rootMessage(e) + "); nothing of it was accepted")), now);
            return new Rejected(rejected.key(), rejected.rejection(), e);
        }
    }

    private Decision decideOrThrow(Source from, Submitter submitter, String key, byte[] payload, Decoder decoder, long now)
            throws InterruptedException {
        if (payload != null && payload.length > maxSpecBytes) {
            return reject(from, key, null, List.of(new FieldError("(record)", tooLarge(payload.length))), now);
        }
        JobSubmission submission;
        try {
            submission = decoder.decode(payload);
        } catch (UnreadableSubmission e) {
            return reject(from, key, null, List.of(new FieldError("(record)", e.getMessage())), now);
        }
        String submissionId = submission.getSubmissionId() != null && !submission.getSubmissionId().isBlank()
                ? submission.getSubmissionId() : key != null ? key : UUID.randomUUID().toString();
        if (submitter instanceof Unverified u) {
            return reject(from, submissionId, submission.getName(), List.of(new FieldError("(header " + TOKEN_HEADER + ")", u.reason())), now);
        }
        if (submitter instanceof Verified v) {
            Access.Ownership ownership = Access.ownerOf(v.caller(), submission.getOwner());
            if (ownership.refusal() != null) {
                return reject(from, submissionId, submission.getName(), List.of(new FieldError("owner", ownership.refusal())), now);
            }
            submission.setOwner(ownership.owner());
        }
        ValidationResult result = check(submission, submissionId, now);
        if (!result.isAccepted()) {
            return reject(from, submissionId, submission.getName(), result.errors(), now);
        }
        JobAccepted accepted = result.accepted();
        accepted.setSourcePartition(from.partition());
        accepted.setSourceOffset(from.offset());
        return new Accepted(accepted);
    }

    private static Rejected reject(Source from, String submissionId, String jobName, List<FieldError> reasons, long now) {
        JobRejected rejected = JobRejected.newBuilder()
                .setSubmissionId(submissionId).setJobName(jobName).setReasons(reasons)
                .setSourceTopic(from.topic()).setSourcePartition(from.partition()).setSourceOffset(from.offset())
                .setRejectedAt(now).build();
        return new Rejected(submissionId != null ? submissionId : from.topic() + "-" + from.partition() + "@" + from.offset(), rejected);
    }
}
