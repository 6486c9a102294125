package io.flash.ingest.core;

import io.flash.common.ids.JobIds;
import io.flash.ingest.core.access.Caller;
import io.flash.ingest.core.validation.JobValidator;
import io.flash.ingest.core.validation.Limits;
import io.flash.schema.*;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** The ingest topic's decision in memory: one outcome per record, whatever the record or the decoder does. */
class IntakeTest {

    private final Intake intake = new Intake(new JobValidator(Limits.defaults()), 1024, Optional::empty, false);
    private final Intake.Source from = new Intake.Source("flash.jobs.submitted", 2, 41L, "key-1");

    private static JobSubmission job(String submissionId, String image) {
        return JobSubmission.newBuilder().setSubmissionId(submissionId).setName("hello").setOwner("alice")
                .setTasks(new ArrayList<>(List.of(TaskSpec.newBuilder().setName("t").setImage(image).setShell("echo hi")
                        .setResources(ResourceRequest.newBuilder().setCpu(0.5).setMemory("64Mi").build()).build()))).build();
    }

    private static JobRejected rejected(Intake.Decision decision) {
        return assertInstanceOf(Intake.Rejected.class, decision).rejection();
    }

    @Test
    void aValidSubmissionIsAcceptedUnderTheJobIdItsSubmissionIdNames() {
        Intake.Decision decision = intake.decide(from, new byte[10], bytes -> job("run-42", "flash/shell:1"), 5L);
        JobAccepted accepted = assertInstanceOf(Intake.Accepted.class, decision).job();
        assertEquals(JobIds.forSubmission("run-42"), accepted.getJobId());
        assertEquals(5L, accepted.getAcceptedAt());
        assertEquals(2, accepted.getSourcePartition(), "where a resubmit reads the submission back");
        assertEquals(41L, accepted.getSourceOffset());
    }

    @Test
    void aResubmissionIsTheAcceptedSubmissionUnderANewIdLabelledWithTheJobItRepeats() {
        JobSubmission original = job("run-42", "flash/shell:1");
        original.setLabels(Map.of("project", "cohort-7"));
        JobSubmission again = Resubmissions.of(original, "job-run-42", "run-43");
        assertEquals("run-43", again.getSubmissionId());
        assertEquals(Map.of("project", "cohort-7", Resubmissions.LABEL, "job-run-42"), again.getLabels());
        assertEquals(original.getTasks(), again.getTasks());
        assertEquals("run-42", original.getSubmissionId(), "the original is left as it was");
        assertEquals(Map.of("project", "cohort-7"), original.getLabels());
        Intake.Decision decision = intake.decide(from, new byte[10], bytes -> again, 6L);
        assertEquals(JobIds.forSubmission("run-43"), assertInstanceOf(Intake.Accepted.class, decision).job().getJobId());
    }

    @Test
    void inTheSecureModeASubmissionIdNamesAJobOfItsOwnerOnly() {
        Intake secure = new Intake(new JobValidator(Limits.defaults()), 1024, Optional::empty, true);
        JobAccepted alices = assertInstanceOf(Intake.Accepted.class, secure.decide(from,
                new Intake.Verified(Caller.user("alice", false)), new byte[10],
                bytes -> job("nightly-42", "flash/shell:1"), 5L)).job();
        JobSubmission bobsJob = job("nightly-42", "flash/shell:1");
        bobsJob.setOwner(null);
        JobAccepted bobs = assertInstanceOf(Intake.Accepted.class, secure.decide(from,
                new Intake.Verified(Caller.user("bob", false)), new byte[10], bytes -> bobsJob, 5L)).job();
        assertEquals(JobIds.forSubmission("alice", "nightly-42"), alices.getJobId());
        assertEquals(JobIds.forSubmission("bob", "nightly-42"), bobs.getJobId());
        assertNotEquals(alices.getJobId(), bobs.getJobId(), "the same id names a job of each owner");
        assertNotEquals(JobIds.forSubmission("nightly-42"), alices.getJobId());
    }

    @Test
    void aSubmissionWithoutIdTakesTheRecordKey() {
        Intake.Decision decision = intake.decide(from, new byte[10], bytes -> job(null, "flash/shell:1"), 5L);
        assertEquals(JobIds.forSubmission("key-1"), assertInstanceOf(Intake.Accepted.class, decision).job().getJobId());
    }

    @Test
    void anInvalidSubmissionIsRejectedByFieldUnderItsSubmissionId() {
        Intake.Decision decision = intake.decide(from, new byte[10], bytes -> job("run-43", ""), 5L);
        assertEquals("run-43", ((Intake.Rejected) decision).key());
        JobRejected rejection = rejected(decision);
        assertEquals("hello", rejection.getJobName());
        assertEquals("tasks[0].image", rejection.getReasons().get(0).getField());
        assertEquals(List.of("flash.jobs.submitted", 2, 41L), List.of(rejection.getSourceTopic(), rejection.getSourcePartition(),
                rejection.getSourceOffset()));
    }

    @Test
    void anOversizedRecordIsRejectedBeforeItIsDecoded() {
        JobRejected rejection = rejected(intake.decide(from, new byte[2048], bytes -> {
            throw new AssertionError("must not be decoded");
        }, 5L));
        assertEquals("(record)", rejection.getReasons().get(0).getField());
        assertTrue(rejection.getReasons().get(0).getReason().startsWith("the job spec is 2048 bytes, more than the limit of 1024"));
    }

    @Test
    void aDoorCountsTheSpecAsTheTopicCarriesItAndRefusesOneByteOverTheLimit() throws Exception {
        JobSubmission job = job("run-43", "flash/shell:1");
        int onTheTopic = SpecBytes.onTheTopic(job);
        // Avro's single-object encoding has a 10-byte header where the registry's wire format has 5.
        assertEquals(job.toByteBuffer().remaining() - 10 + 5, onTheTopic);
        for (int limit : new int[]{onTheTopic - 1, onTheTopic, onTheTopic + 1}) {
            var checked = new Intake(new JobValidator(Limits.defaults()), limit, Optional::empty, false).check(job, "run-43", 5L);
            assertEquals(limit >= onTheTopic, checked.isAccepted(), "a spec of " + onTheTopic + " bytes at the limit " + limit);
            if (!checked.isAccepted()) {
                assertEquals("(body)", checked.errors().get(0).getField());
                assertTrue(checked.errors().get(0).getReason().startsWith("the job spec is " + onTheTopic + " bytes, more than the limit of "
                        + limit + " (flash.ingest.max-spec-bytes)"), checked.errors().toString());
            }
        }
    }

    @Test
    void whateverTheDecoderThrowsBecomesARejectionNeverAnException() {
        List<Intake.Decoder> hostile = List.of(
                bytes -> {
                    throw new UnreadableSubmission("not Avro: the first byte is 0x7b, not the magic byte 0");
                },
                bytes -> {
                    throw new IllegalStateException("a bug in a library");
                },
                bytes -> {
                    throw new StackOverflowError();
                },
                bytes -> {
                    throw new OutOfMemoryError("a length field claiming gigabytes");
                });
        for (Intake.Decoder decoder : hostile) {
            JobRejected rejection = rejected(intake.decide(new Intake.Source("t", 0, 7L, null), new byte[3], decoder, 5L));
            assertEquals("(record)", rejection.getReasons().get(0).getField());
            assertNull(rejection.getSubmissionId());
        }
        Intake.Decision keyless = intake.decide(new Intake.Source("t", 1, 9L, " "), new byte[3], bytes -> {
            throw new IllegalStateException("x");
        }, 5L);
        assertEquals("t-1@9", ((Intake.Rejected) keyless).key(), "a record without a usable key is named by where it was");
    }

    @Test
    void anInterruptedDecodeAsksForTheRecordAgain() {
        JobRejected rejection = rejected(intake.decide(from, new byte[3], bytes -> {
            throw new InterruptedException();
        }, 5L));
        assertTrue(rejection.getReasons().get(0).getReason().contains("submit it again"));
        assertTrue(Thread.interrupted(), "the interrupt is kept for the caller");
    }

    @Test
    void inTheSecureModeARecordWithoutATrustedTokenIsRejectedNamingTheHeader() {
        JobRejected rejection = rejected(intake.decide(from, new Intake.Unverified("no access token"), new byte[10],
                bytes -> job("run-44", "flash/shell:1"), 5L));
        assertEquals("(header flash-token)", rejection.getReasons().get(0).getField());
        assertEquals("no access token", rejection.getReasons().get(0).getReason());
    }

    @Test
    void theOwnerOfAVerifiedSubmissionIsItsTokensUserAndNamingAnotherIsRefused() {
        Intake.Submitter bob = new Intake.Verified(Caller.user("bob", false));
        JobRejected refused = rejected(intake.decide(from, bob, new byte[10], bytes -> job("run-45", "flash/shell:1"), 5L));
        assertEquals("owner", refused.getReasons().get(0).getField());
        assertTrue(refused.getReasons().get(0).getReason().contains("bob may not submit a job owned by alice"), refused.toString());

        JobSubmission ownerless = job("run-46", "flash/shell:1");
        ownerless.setOwner(null);
        Intake.Decision accepted = intake.decide(from, bob, new byte[10], bytes -> ownerless, 5L);
        assertEquals("bob", assertInstanceOf(Intake.Accepted.class, accepted).job().getOwner());
    }
}
