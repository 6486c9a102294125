package io.flash.e2e;

import io.flash.common.ids.JobIds;
import io.flash.schema.*;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

import java.net.URI;
import java.util.List;
import java.util.Map;

import static io.flash.e2e.FoundationTest.job;
import static io.flash.e2e.FoundationTest.task;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Inputs from and outputs to the platform's own S3-compatible store (s3proxy, infra/s3/start.sh, as
 * bin/flash up starts it) through the executor:
 * an object fetched as an input, outputs uploaded before SUCCEEDED, and a second job reading the
 * first one's output back from the store.
 */
class ObjectStoreTest extends StackTest {

    private S3Client client;

    /** The platform's own store (infra/s3/start.sh, as bin/flash up runs it): no configuration but its keys. */
    @BeforeAll
    void fillStore() {
        client = client(stack);
        client.createBucket(b -> b.bucket("genomes"));
        client.createBucket(b -> b.bucket("flash-results"));
        client.putObject(b -> b.bucket("genomes").key("ref/lambda.fa"), RequestBody.fromString(">lambda\nGGGCGGCGACCTCGCGGGTTTTCGCTA\n"));
    }

    /** An SDK client of the platform's store, as a pipeline reading Flash's outputs would use. */
    static S3Client client(FlashStack stack) {
        Map<String, String> keys = stack.s3Keys();
        return S3Client.builder().httpClient(UrlConnectionHttpClient.create()).region(Region.US_EAST_1)
                .endpointOverride(URI.create(stack.s3Endpoint())).forcePathStyle(true)
                // s3proxy, like many S3-compatible stores, rejects the SDK's newer default trailing checksums.
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(keys.get("FLASH_S3_ACCESS_KEY"),
                        keys.get("FLASH_S3_SECRET_KEY"))))
                .build();
    }

    @AfterAll
    void closeClient() {
        if (client != null) client.close();
    }

    @Test
    void anObjectInputAndAnUploadedOutputRoundTripThroughTheStore() throws Exception {
        TaskSpec count = task("count", "mkdir -p /workspace/out && wc -c < /work/inputs/genomes/ref/lambda.fa > /workspace/out/count.txt",
                0.25, "32Mi");
        count.setInputs(List.of("s3://genomes/ref/lambda.fa"));
        count.setOutputs(List.of("out/count.txt"));
        JobSubmission first = job("store-write", count);
        first.setStore("s3://flash-results/runs");
        JobResult written = run(first);
        assertEquals(JobState.SUCCEEDED, written.getState(), () -> String.valueOf(written.getReason()));
        String jobId = JobIds.forSubmission(first.getSubmissionId());
        String uri = "s3://flash-results/runs/" + jobId + "/out/count.txt";
        assertEquals(List.of(uri + " (3 bytes)"), written.getTasks().get(0).getOutputs());
        String stored = client.getObjectAsBytes(b -> b.bucket("flash-results").key("runs/" + jobId + "/out/count.txt")).asUtf8String();
        assertEquals("36\n", stored, "uploaded before SUCCEEDED was reported");

        TaskSpec read = task("read", "cat /work/inputs/flash-results/runs/" + jobId + "/out/count.txt", 0.25, "32Mi");
        read.setInputs(List.of(uri));
        JobResult back = run(job("store-read", read));
        assertEquals(JobState.SUCCEEDED, back.getState(), () -> String.valueOf(back.getReason()));
        assertEquals("36", back.getTasks().get(0).getStdoutTail().strip());
    }

    @Test
    void aMissingObjectFailsTheTaskNamingIt() throws Exception {
        TaskSpec t = task("needs", "true", 0.25, "32Mi");
        t.setInputs(List.of("s3://genomes/no/such.fa"));
        JobResult result = run(job("store-missing", t));
        assertEquals(JobState.FAILED, result.getState());
        TaskSummary summary = result.getTasks().get(0);
        assertEquals(FailureClass.USER, summary.getFailureClass());
        assertTrue(summary.getReason().contains("s3://genomes/no/such.fa does not exist"), summary.getReason());
    }

    @Test
    void streamingModeFetchesComputesAndDeletesWithinItsWindowAndDiskBound() throws Exception {
        for (int i = 0; i < 12; i++) {
            String key = String.format("panel/g%02d.fa", i);
            client.putObject(b -> b.bucket("genomes").key(key), RequestBody.fromBytes(new byte[1000]));
        }
        // Each run records its object and how many objects were on the node (in /work/stream) at that moment.
        TaskSpec compare = task("compare", "echo \"$FLASH_STREAM_NAME $(ls /work/stream | wc -l) $(wc -c < $FLASH_STREAM_ITEM)\" >> /workspace/streamed.txt",
                0.25, "32Mi");
        compare.setStream(StreamSpec.newBuilder().setFrom("s3://genomes/panel/").setWindow(4).setMaxDisk("2500").build());
        compare.setOutputs(List.of("streamed.txt"));
        JobSubmission job = job("stream", compare);
        JobResult result = run(job);
        assertEquals(JobState.SUCCEEDED, result.getState(), () -> String.valueOf(result.getReason()));

        String jobId = JobIds.forSubmission(job.getSubmissionId());
        List<String> lines = java.nio.file.Files.readAllLines(stack.dataDir().resolve("work/jobs/" + jobId + "/streamed.txt"));
        assertEquals(12, lines.size(), "one run per object: " + lines);
        for (int i = 0; i < 12; i++) {
            String[] f = lines.get(i).trim().split("\\s+");
            assertEquals(String.format("g%02d.fa", i), f[0], "in key order");
            assertEquals("1000", f[2]);
            assertTrue(Integer.parseInt(f[1]) <= 2, "never more than 2 KB of 1 KB objects (maxDisk 2500) on the node: " + lines.get(i));
        }
    }
}
