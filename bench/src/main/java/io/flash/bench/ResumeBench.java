package io.flash.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.flash.common.client.JobClient;
import io.flash.schema.*;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.*;

/**
 * The task-result cache on the variant-calling pipeline (examples/variant-calling.yaml, one task per
 * sample and step so that each declares what it reads and writes: the cache's default serves them),
 * through a running Flash, in one run: cold; again unchanged (all hits); one sample's reads changed
 * (that sample's chain and the merge re-run); a job failed at its last step, submitted again as it
 * was ({@code flash resubmit}: only the last step runs, and fails again) and fixed (everything before
 * it from the cache). Prints each run's makespan, units run and served from
 * the cache, and the ratios to the cold run.
 *
 * Usage: ResumeBench [samples]; FLASH_BOOTSTRAP_SERVERS / FLASH_REGISTRY_URL select the platform.
 */
public final class ResumeBench {

    private static final String IMAGE = "flash/tools:1";
    private static final List<String> REFERENCE = List.of("ref/ref.fa", "ref/ref.fa.fai", "ref/ref.fa.amb", "ref/ref.fa.ann",
            "ref/ref.fa.bwt", "ref/ref.fa.pac", "ref/ref.fa.sa");

    private static final ObjectMapper JSON = new ObjectMapper();

    private record Run(String what, double seconds, long ran, long cached, JobResult result) {
    }

    public static void main(String[] args) throws Exception {
        int samples = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        String bootstrap = Optional.ofNullable(System.getenv("FLASH_BOOTSTRAP_SERVERS")).orElse("127.0.0.1:9092");
        String registry = Optional.ofNullable(System.getenv("FLASH_REGISTRY_URL")).orElse("http://127.0.0.1:8081");
        String salt = Long.toString(System.currentTimeMillis()); // a fresh run keys afresh: no entry of an earlier run is used
        List<Run> runs = new ArrayList<>();
        try (JobClient client = new JobClient(bootstrap, registry); JobClient.ResultStream results = client.openResults()) {
            runs.add(run(client, results, "cold", pipeline(samples, salt, 10_000, Map.of(), false)));
            runs.add(run(client, results, "unchanged", pipeline(samples, salt, 10_000, Map.of(), false)));
            runs.add(run(client, results, "one sample's reads changed", pipeline(samples, salt, 10_000, Map.of("s1", 12_000), false)));
            String other = salt + "-b";
            Run failed = run(client, results, "failed at its last step", pipeline(samples, other, 10_000, Map.of(), true));
            runs.add(failed);
            runs.add(resubmitted(results, "failed: flash resubmit", failed.result().getJobId()));
            runs.add(run(client, results, "the same, fixed", pipeline(samples, other, 10_000, Map.of(), false)));
        }
        double cold = runs.get(0).seconds();
        System.out.printf(Locale.ROOT, "%-28s %10s %9s %6s %7s%n", "run (" + samples + " samples)", "makespan", "vs cold", "ran", "cached");
        for (Run r : runs) {
            System.out.printf(Locale.ROOT, "%-28s %8.1f s %9.2f %6d %7d%n", r.what(), r.seconds(), r.seconds() / cold, r.ran(), r.cached());
        }
    }

    /** POST /jobs/{id}/resubmit, as {@code flash resubmit} does: the same job again, what did not change from the cache. */
    private static Run resubmitted(JobClient.ResultStream results, String what, String jobId) throws Exception {
        String api = Optional.ofNullable(System.getenv("FLASH_API_URL")).orElse("http://127.0.0.1:8090");
        long start = System.nanoTime();
        HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(api + "/jobs/" + jobId + "/resubmit"))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() != 202) throw new IllegalStateException(what + ": " + answer.statusCode() + " " + answer.body());
        String again = JSON.readTree(answer.body()).get("jobId").asText();
        return ended(results, what, again, start);
    }

    private static Run run(JobClient client, JobClient.ResultStream results, String what, JobSubmission job) throws Exception {
        return ended(results, what, client.submit(job), System.nanoTime());
    }

    private static Run ended(JobClient.ResultStream results, String what, String jobId, long start) throws Exception {
        JobResult result = results.await(jobId, Duration.ofMinutes(30)).orElseThrow(() -> new IllegalStateException(what + ": no result"));
        double seconds = (System.nanoTime() - start) / 1e9;
        boolean expectFailure = what.startsWith("failed");
        if ((result.getState() == JobState.SUCCEEDED) == expectFailure) {
            throw new IllegalStateException(what + " ended " + result.getState() + ": " + result.getReason());
        }
        long cached = result.getTasks().stream().filter(t -> t.getCachedFrom() != null).count();
        long ran = result.getTasks().stream().filter(t -> t.getCachedFrom() == null && t.getState() != TaskState.SKIPPED).count();
        System.err.printf(Locale.ROOT, "%s: %.1f s, %d units ran, %d from the cache%n", what, seconds, ran, cached);
        return new Run(what, seconds, ran, cached, result);
    }

    /** @param readsOf a sample's number of read pairs where it differs from {@code reads} */
    static JobSubmission pipeline(int samples, String salt, int reads, Map<String, Integer> readsOf, boolean failMerge) {
        List<TaskSpec> tasks = new ArrayList<>();
        tasks.add(task("reference", "mkdir -p /workspace/ref && zcat /ref/lambda_virus.fa.gz > /workspace/ref/ref.fa"
                + " && samtools faidx /workspace/ref/ref.fa && bwa index /workspace/ref/ref.fa", List.of(), List.of(), REFERENCE, 1.0, "256Mi"));
        tasks.get(0).setEnv(new HashMap<>(Map.of("RUN", salt)));
        List<String> calls = new ArrayList<>();
        for (int n = 1; n <= samples; n++) {
            String s = "s" + n;
            List<String> fq = List.of("reads/" + s + ".1.fq", "reads/" + s + ".2.fq");
            TaskSpec simulate = task("simulate-" + s, "mkdir -p /workspace/reads && wgsim -S " + n * 11 + " -N $READS -1 100 -2 100 -r 0.001"
                    + " -R 0.15 -e 0.0 /workspace/ref/ref.fa /workspace/" + fq.get(0) + " /workspace/" + fq.get(1) + " > /dev/null",
                    List.of("reference"), List.of("ref/ref.fa"), fq, 0.5, "128Mi");
            simulate.setEnv(new HashMap<>(Map.of("READS", Integer.toString(readsOf.getOrDefault(s, reads)))));
            List<String> alignInputs = new ArrayList<>(REFERENCE);
            alignInputs.addAll(fq);
            TaskSpec align = task("align-" + s, "mkdir -p /workspace/bam && bwa mem -t 1 -R '@RG\\tID:" + s + "\\tSM:" + s + "' /workspace/ref/ref.fa"
                    + " /workspace/" + fq.get(0) + " /workspace/" + fq.get(1) + " | samtools view -b -o /workspace/bam/" + s + ".bam",
                    List.of("simulate-" + s), alignInputs, List.of("bam/" + s + ".bam"), 1.0, "512Mi");
            List<String> sorted = List.of("bam/" + s + ".sorted.bam", "bam/" + s + ".sorted.bam.bai");
            TaskSpec sort = task("sort-" + s, "samtools sort -T /tmp/" + s + " -o /workspace/" + sorted.get(0) + " /workspace/bam/" + s + ".bam"
                    + " && samtools index /workspace/" + sorted.get(0), List.of("align-" + s), List.of("bam/" + s + ".bam"), sorted, 1.0, "512Mi");
            List<String> vcf = List.of("vcf/" + s + ".vcf.gz", "vcf/" + s + ".vcf.gz.csi");
            List<String> callInputs = new ArrayList<>(sorted);
            callInputs.add("ref/ref.fa");
            callInputs.add("ref/ref.fa.fai");
            TaskSpec call = task("call-" + s, "mkdir -p /workspace/vcf && bcftools mpileup -f /workspace/ref/ref.fa /workspace/" + sorted.get(0)
                    + " | bcftools call -mv -Oz -o /workspace/" + vcf.get(0) + " && bcftools index /workspace/" + vcf.get(0),
                    List.of("sort-" + s), callInputs, vcf, 1.0, "256Mi");
            tasks.addAll(List.of(simulate, align, sort, call));
            calls.add("call-" + s);
            calls.add(vcf.get(0));
        }
        List<String> callTasks = calls.stream().filter(c -> c.startsWith("call-")).toList();
        List<String> vcfs = calls.stream().filter(c -> c.startsWith("vcf/")).toList();
        String merge = "mkdir -p /workspace/results && bcftools merge " + String.join(" ", vcfs.stream().map(v -> "/workspace/" + v).toList())
                + " -Oz -o /workspace/results/merged.vcf.gz && bcftools stats /workspace/results/merged.vcf.gz > /workspace/results/stats.txt"
                + (failMerge ? " && echo 'the merge step fails on purpose' && exit 3" : "");
        tasks.add(task("merge", merge, callTasks, vcfs, List.of("results/merged.vcf.gz", "results/stats.txt"), 1.0, "256Mi"));
        return JobSubmission.newBuilder().setSubmissionId("resume-" + UUID.randomUUID()).setName("resume-bench").setOwner("bench")
                .setTasks(tasks).build();
    }

    private static TaskSpec task(String name, String shell, List<String> dependsOn, List<String> inputs, List<String> outputs,
                                 double cpu, String memory) {
        return TaskSpec.newBuilder().setName(name).setImage(IMAGE).setShell(shell).setDependsOn(dependsOn)
                .setInputs(inputs).setOutputs(outputs)
                .setResources(ResourceRequest.newBuilder().setCpu(cpu).setMemory(memory).build()).build();
    }
}
