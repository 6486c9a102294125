package io.flash.ingest.history;

import io.flash.schema.LogChunk;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** A job's output assembled from its log chunks, in memory. */
class JobLogsTest {

    private static LogChunk chunk(String unit, int attempt, long seq, String text, boolean last, long at) {
        return LogChunk.newBuilder().setAttemptId(unit + "." + attempt).setJobId("job-1").setTaskId(unit).setNodeId("n1")
                .setSeq(seq).setText(text).setLast(last).setAt(at).build();
    }

    @Test
    void chunksAreJoinedInOrderOnceEachAndAttemptsOrderedByStart() {
        List<LogChunk> chunks = List.of(
                chunk("job-1.align", 2, 0, "retry\n", true, 50),
                chunk("job-1.align", 1, 1, "b\n", false, 20),
                chunk("job-1.align", 1, 0, "a\n", false, 10),
                chunk("job-1.align", 1, 0, "a\n", false, 30), // an executor restart replays from the start
                chunk("job-1.align", 1, 2, "c\n", true, 40),
                LogChunk.newBuilder(chunk("job-2.align", 1, 0, "other job\n", true, 5)).setJobId("job-2").build());
        List<JobLogs.AttemptLog> logs = JobLogs.assemble("job-1", chunks, JobLogs.Filter.ALL);
        assertEquals(List.of("job-1.align.1", "job-1.align.2"), logs.stream().map(JobLogs.AttemptLog::attemptId).toList());
        assertEquals("a\nb\nc\n", logs.get(0).text());
        assertTrue(logs.get(0).complete());
    }

    @Test
    void aMissingChunkOrNoLastOneLeavesTheAttemptIncomplete() {
        List<JobLogs.AttemptLog> gap = JobLogs.assemble("job-1", List.of(chunk("job-1.t", 1, 0, "a\n", false, 1),
                chunk("job-1.t", 1, 2, "c\n", true, 3)), JobLogs.Filter.ALL);
        assertFalse(gap.get(0).complete(), "chunk 1 has not arrived");
        assertFalse(JobLogs.assemble("job-1", List.of(chunk("job-1.t", 1, 0, "a\n", false, 1)), JobLogs.Filter.ALL).get(0).complete(),
                "still running");
    }

    @Test
    void aTaskItsShardAndOneAttemptCanBeAskedFor() {
        List<LogChunk> chunks = List.of(chunk("job-1.call.s0", 1, 0, "s0\n", true, 1), chunk("job-1.call.s1", 1, 0, "s1\n", true, 2),
                chunk("job-1.call.s1", 2, 0, "s1 again\n", true, 3), chunk("job-1.caller", 1, 0, "not call\n", true, 4),
                chunk("job-1.merge", 1, 0, "merged\n", true, 5));
        assertEquals(3, JobLogs.assemble("job-1", chunks, new JobLogs.Filter("call", null, null)).size(), "every shard of call, not caller");
        assertEquals(2, JobLogs.assemble("job-1", chunks, new JobLogs.Filter("call", 1, null)).size());
        List<JobLogs.AttemptLog> second = JobLogs.assemble("job-1", chunks, new JobLogs.Filter("call", 1, 2));
        assertEquals("s1 again\n", second.get(0).text());
        assertEquals("merged\n", JobLogs.assemble("job-1", chunks, new JobLogs.Filter("merge", null, null)).get(0).text());
    }
}
