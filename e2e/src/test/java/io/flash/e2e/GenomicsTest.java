package io.flash.e2e;

import io.flash.common.jobfile.JobFiles;
import io.flash.schema.*;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.*;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The shipped genomics examples, as a user submits them, through all five services and the real
 * Docker engine with the real tools and the real lambda phage genome; the biological results are
 * checked, not just the exit codes.
 */
class GenomicsTest extends StackTest {

    private JobResult runExample(String file) throws Exception {
        JobSubmission job = JobFiles.read(Path.of(System.getProperty("flash.home", "..")).resolve("examples").resolve(file));
        job.setSubmissionId(job.getName() + "-" + UUID.randomUUID());
        JobResult result = run(job, Duration.ofMinutes(8));
        assertEquals(JobState.SUCCEEDED, result.getState(), () -> file + ": " + result.getReason());
        return result;
    }

    private static TaskSummary task(JobResult result, String name) {
        return result.getTasks().stream().filter(t -> t.getName().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void variantCallingFindsTheExpectedVariantsInTwoSamples() throws Exception {
        JobResult result = runExample("variant-calling.yaml");
        assertEquals(2, task(result, "call").getShardsSucceeded());
        String summary = task(result, "merge").getStdoutTail().strip();
        assertEquals("merged: samples=2 records=99 snps=85 indels=14", summary);
        assertTrue(task(result, "merge").getOutputs().stream().anyMatch(o -> o.startsWith("results/merged.vcf.gz")));
    }

    @Test
    void similarityRanksThePanelByDivergence() throws Exception {
        JobResult result = runExample("similarity.yaml");
        List<String> hits = task(result, "gather").getStdoutTail().strip().lines().toList();
        assertEquals(6, hits.size(), "one distance per panel genome: " + hits);
        double previous = -1;
        for (int i = 0; i < hits.size(); i++) {
            String[] f = hits.get(i).split(" ");
            assertEquals("/workspace/panel/genome" + (i + 1) + ".fa", f[0], "nearest first, in order of divergence: " + hits);
            double distance = Double.parseDouble(f[1]);
            assertTrue(distance > previous, "distances rise with divergence: " + hits);
            previous = distance;
        }
    }
}
