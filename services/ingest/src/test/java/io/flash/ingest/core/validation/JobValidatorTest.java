package io.flash.ingest.core.validation;

import io.flash.schema.*;
import java.util.*;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class JobValidatorTest {

    private final JobValidator validator = new JobValidator(Limits.defaults());

    private static TaskSpec.Builder task(String name) {
        return TaskSpec.newBuilder().setName(name).setImage("flash/shell:1").setShell("echo " + name);
    }

    private static JobSubmission job(TaskSpec.Builder... tasks) {
        List<TaskSpec> specs = new ArrayList<>();
        for (TaskSpec.Builder t : tasks) specs.add(t.build());
        return JobSubmission.newBuilder().setName("j").setTasks(specs).build();
    }

    private Map<String, String> errors(JobSubmission job) {
        ValidationResult result = validator.validate(job, "job-1", "sub-1", 5L);
        assertFalse(result.isAccepted(), "expected a rejection");
        Map<String, String> byField = new LinkedHashMap<>();
        result.errors().forEach(e -> byField.put(e.getField(), e.getReason()));
        return byField;
    }

    @Test
    void normalisesAValidJob() {
        ValidationResult result = validator.validate(job(
                task("a").setResources(ResourceRequest.newBuilder().setCpu(0.5).setMemory("64Mi").setDiskType("SSD").build()),
                task("b").setShell(null).setCommand(List.of("echo", "b")).setDependsOn(List.of("a")).setTimeout("10m")),
                "job-1", "sub-1", 5L);
        assertTrue(result.isAccepted(), () -> result.errors().toString());
        JobAccepted job = result.accepted();
        assertEquals("anonymous", job.getOwner());
        assertEquals("default", job.getQueue());
        assertEquals(FailureMode.STOP, job.getFailureMode());
        TaskDefinition a = job.getTasks().get(0);
        assertEquals(List.of("/bin/sh", "-c", "echo a"), a.getCommand());
        assertEquals(new Capacity(0.5, 64L << 20, 0L, 0), a.getResources());
        assertEquals(DiskType.SSD, a.getDiskType());
        TaskDefinition b = job.getTasks().get(1);
        assertEquals(List.of("echo", "b"), b.getCommand());
        assertEquals(600L, b.getTimeoutSeconds());
        assertEquals(1.0, b.getResources().getCpu(), "documented default cpu");
        assertEquals(512L << 20, b.getResources().getMemoryBytes(), "documented default memory");
    }

    @Test
    void spotIsAllowedUnlessATaskSaysNever() {
        ValidationResult result = validator.validate(job(task("a"), task("b").setSpot("never"), task("c").setSpot(" Allow ")),
                "job-1", "sub-1", 5L);
        assertTrue(result.isAccepted(), () -> result.errors().toString());
        assertEquals(List.of(true, false, true), result.accepted().getTasks().stream().map(TaskDefinition::getSpotAllowed).toList());
        assertEquals("'sometimes' is not one of allow, never", errors(job(task("a").setSpot("sometimes"))).get("tasks[0].spot"));
    }

    @Test
    void aTaskTakesTheJobsCacheSettingUnlessItSaysItsOwnAndTheJobsMaxAge() {
        JobSubmission job = job(task("a"), task("b").setCache(true), task("c").setCache(false));
        job.setCache(false);
        job.setCacheMaxAge("7d");
        ValidationResult result = validator.validate(job, "job-1", "sub-1", 5L);
        assertTrue(result.isAccepted(), () -> result.errors().toString());
        assertEquals(Arrays.asList(false, true, false), result.accepted().getTasks().stream().map(TaskDefinition::getCache).toList());
        assertEquals(List.of(604_800L, 604_800L, 604_800L),
                result.accepted().getTasks().stream().map(TaskDefinition::getCacheMaxAgeSeconds).toList());
        JobSubmission unsaid = job(task("a"));
        assertNull(validator.validate(unsaid, "job-1", "sub-1", 5L).accepted().getTasks().get(0).getCache(), "the default decides");
        unsaid.setCacheMaxAge("a week");
        assertTrue(errors(unsaid).get("cacheMaxAge").startsWith("'a week' is not a duration"), errors(unsaid).toString());
        unsaid.setCacheMaxAge("0s");
        assertTrue(errors(unsaid).get("cacheMaxAge").contains("would never use the cache"));
    }

    @Test
    void rejectsAJobWithoutTasks() {
        assertEquals(Set.of("tasks"), errors(JobSubmission.newBuilder().setName("j").setTasks(List.of()).build()).keySet());
    }

    @Test
    void namesEveryBadFieldOfATask() {
        Map<String, String> errors = errors(job(task("a").setImage("").setShell(null)
                .setResources(ResourceRequest.newBuilder().setCpu(-1.0).setMemory("4 GB").setNetwork("internet").build())
                .setDependsOn(List.of("ghost"))));
        assertEquals(Set.of("tasks[0].image", "tasks[0].command", "tasks[0].resources.cpu", "tasks[0].resources.memory",
                "tasks[0].resources.network", "tasks[0].dependsOn[0]"), errors.keySet());
        assertTrue(errors.get("tasks[0].resources.memory").contains("4Gi"), "says how to write it");
        assertTrue(errors.get("tasks[0].dependsOn[0]").contains("ghost"));
    }

    @Test
    void rejectsMalformedImagesAndDuplicateNames() {
        Map<String, String> errors = errors(job(task("a").setImage("Not A/Valid Image"), task("a")));
        assertTrue(errors.containsKey("tasks[0].image"));
        assertTrue(errors.get("tasks[1].name").contains("duplicate"));
    }

    @Test
    void acceptsRegistryQualifiedImages() {
        for (String image : List.of("busybox", "flash/shell:1", "127.0.0.1:5000/lab/bwa:0.7.17",
                "quay.io/biocontainers/samtools:1.17--h00cdaf9_0", "alpine@sha256:" + "a".repeat(64))) {
            assertTrue(validator.validate(job(task("a").setImage(image)), "j", "s", 0L).isAccepted(), image);
        }
    }

    @Test
    void namesTheCycle() {
        Map<String, String> errors = errors(job(task("a").setDependsOn(List.of("c")), task("b").setDependsOn(List.of("a")),
                task("c").setDependsOn(List.of("b")), task("d")));
        String reason = errors.values().iterator().next();
        assertTrue(reason.matches("dependency cycle: (a -> c -> b -> a|b -> a -> c -> b|c -> b -> a -> c)"), reason);
    }

    @Test
    void catchesMemoryWrittenWithoutAUnit() {
        String reason = errors(job(task("a").setResources(ResourceRequest.newBuilder().setMemory("64").build())))
                .get("tasks[0].resources.memory");
        assertTrue(reason.contains("did you mean 64Mi"), reason);
    }

    @Test
    void checksLimitsAndEnums() {
        Map<String, String> errors = errors(JobSubmission.newBuilder().setName("").setFailureMode("sometimes")
                .setTasks(List.of(task("a").setMaxAttempts(0).setTimeout("later")
                        .setResources(ResourceRequest.newBuilder().setCpu(1000.0).setDiskType("tape").build()).build())).build());
        assertEquals(Set.of("name", "failureMode", "tasks[0].maxAttempts", "tasks[0].timeout", "tasks[0].resources.cpu",
                "tasks[0].resources.diskType"), errors.keySet());
    }

    @Test
    void scatterBecomesShards() {
        ValidationResult result = validator.validate(job(task("compare")
                .setScatter(ScatterSpec.newBuilder().setFrom(0L).setTo(250_000L).setShardSize(120_000).build())), "j", "s", 0L);
        assertTrue(result.isAccepted(), () -> result.errors().toString());
        assertEquals(3, result.accepted().getTasks().get(0).getScatter().getShards());
    }

    @Test
    void scatterNeedsAShardSizeAndOneSource() {
        assertEquals(Set.of("tasks[0].scatter.shardSize"), errors(job(task("a")
                .setScatter(ScatterSpec.newBuilder().setItems(List.of("x")).build()))).keySet());
        assertEquals(Set.of("tasks[0].scatter"), errors(job(task("a")
                .setScatter(ScatterSpec.newBuilder().setItems(List.of("x")).setFrom(0L).setTo(2L).setShardSize(1).build()))).keySet());
        assertTrue(errors(job(task("a").setScatter(ScatterSpec.newBuilder().setFrom(0L).setTo(10_000_000L).setShardSize(1).build())))
                .get("tasks[0].scatter.shardSize").contains("more than the limit of 1000000"));
    }

    @Test
    void aScatterMayAskForAShardDurationInsteadOfASize() {
        ValidationResult result = validator.validate(job(task("a").setScatter(ScatterSpec.newBuilder().setFrom(0L).setTo(10_000_000L)
                .setTargetShardDuration("40m").build())), "j", "s", 0L);
        assertTrue(result.isAccepted(), () -> result.errors().toString());
        Scatter scatter = result.accepted().getTasks().get(0).getScatter();
        assertEquals(2400L, scatter.getTargetShardSeconds());
        assertEquals(List.of(10, 1_000_000), List.of(scatter.getShardSize(), scatter.getShards()),
                "provisional: the smallest shards the limit allows; the planner sizes them");
        assertEquals("give either shardSize or targetShardDuration, not both", errors(job(task("a").setScatter(ScatterSpec.newBuilder()
                .setItems(List.of("x")).setShardSize(1).setTargetShardDuration("40m").build()))).get("tasks[0].scatter.targetShardDuration"));
        assertTrue(errors(job(task("a").setScatter(ScatterSpec.newBuilder().setItems(List.of("x")).setTargetShardDuration("soon").build())))
                .containsKey("tasks[0].scatter.targetShardDuration"));
    }

    @Test
    void retryRulesAreChecked() {
        Map<String, String> errors = errors(job(task("a").setRetryOnExitCodes(List.of(0)).setBackoff("a while")));
        assertEquals(Set.of("tasks[0].retryOnExitCodes[0]", "tasks[0].backoff"), errors.keySet());
        ValidationResult ok = validator.validate(job(task("a").setMaxAttempts(3).setRetryOnExitCodes(List.of(75))
                .setFailOnExitCodes(List.of(2)).setBackoff("30s")), "j", "s", 0L);
        assertEquals(30L, ok.accepted().getTasks().get(0).getBackoffSeconds());
        assertEquals(List.of(75), ok.accepted().getTasks().get(0).getRetryOnExitCodes());
    }

    @Test
    void resourcesBeyondTheLargestNodeAreRejectedWhenKnown() {
        var largest = Optional.of(new LargestNode(
                new Capacity(8.0, 16L << 30, 0L, 0), "ecs-big", "ecs-big"));
        ValidationResult result = validator.validate(job(task("a").setResources(ResourceRequest.newBuilder()
                .setCpu(16.0).setMemory("32Gi").build())), "j", "s", 0L, largest);
        Map<String, String> errors = new LinkedHashMap<>();
        result.errors().forEach(e -> errors.put(e.getField(), e.getReason()));
        assertEquals("16.0 cores is more than any node offers (largest: 8.0 cores, on ecs-big)", errors.get("tasks[0].resources.cpu"));
        assertEquals("32Gi is more than any node offers (largest: 16Gi, on ecs-big)", errors.get("tasks[0].resources.memory"));
        assertTrue(validator.validate(job(task("a")), "j", "s", 0L, largest).isAccepted());
    }

    @Test
    void outputsMustStayInsideTheWorkspace() {
        Map<String, String> errors = errors(job(task("a").setOutputs(List.of("ok/file.txt", "../escape", "/etc/passwd"))));
        assertEquals(Set.of("tasks[0].outputs[1]", "tasks[0].outputs[2]"), errors.keySet());
        ValidationResult ok = validator.validate(job(task("a").setOutputs(List.of("/workspace/r/x.vcf", "r/y.vcf"))), "j", "s", 0L);
        assertEquals(List.of("r/x.vcf", "r/y.vcf"), ok.accepted().getTasks().get(0).getOutputs());
    }

    @Test
    void inputsAreWorkspacePathsOrObjectsAndOutputsGoToTheJobsStore() {
        Map<String, String> errors = errors(job(task("a").setInputs(List.of("ref/lambda.fa", "s3://genomes/lambda.fa",
                "s3://B/x", "https://example.org/x")).setOutputs(List.of("s3://results/out.vcf"))));
        assertEquals(Set.of("tasks[0].inputs[2]", "tasks[0].inputs[3]", "tasks[0].outputs[0]"), errors.keySet());
        assertTrue(errors.get("tasks[0].inputs[2]").contains("is not s3://bucket/key"), errors.toString());
        assertTrue(errors.get("tasks[0].inputs[3]").contains("only s3:// objects can be fetched"), errors.toString());
        assertTrue(errors.get("tasks[0].outputs[0]").contains("set the job's store"), errors.toString());

        var job = job(task("a").setInputs(List.of("s3://genomes/lambda.fa")).setOutputs(List.of("out.vcf")));
        job.setStore("s3://results/runs");
        TaskDefinition accepted = validator.validate(job, "j", "s", 0L).accepted().getTasks().get(0);
        assertEquals(List.of("s3://genomes/lambda.fa"), accepted.getInputs());
        assertEquals("s3://results/runs", accepted.getStore());
        job.setStore("s3://Results");
        assertTrue(errors(job).get("store").contains("is not s3://bucket or s3://bucket/prefix"));
    }

    @Test
    void refusesWhatTheEngineOrTheKernelWouldRefuseAtRunTime() {
        Map<String, java.util.function.Consumer<TaskSpec.Builder>> spoilt = new LinkedHashMap<>();
        spoilt.put("tasks[0].env.A=B", t -> t.setEnv(Map.of("A=B", "x")));
        spoilt.put("tasks[0].env.A B", t -> t.setEnv(Map.of("A B", "x")));
        spoilt.put("tasks[0].env.", t -> t.setEnv(Map.of("", "x")));
        spoilt.put("tasks[0].env.OK", t -> t.setEnv(Map.of("OK", "a\0b")));
        spoilt.put("tasks[0].env.FLASH_TASK_ID", t -> t.setEnv(Map.of("FLASH_TASK_ID", "x")));
        spoilt.put("tasks[0].image", t -> t.setImage("flash/shell:1\n"));
        spoilt.put("tasks[0].workdir", t -> t.setWorkdir("../../"));
        spoilt.put("tasks[0].timeout", t -> t.setTimeout("0"));
        spoilt.put("tasks[0].shell", t -> t.setShell("echo \0"));
        spoilt.put("tasks[0].inputs[0]", t -> t.setInputs(List.of("a\0b")));
        spoilt.put("tasks[0].resources.memory", t -> t.setResources(ResourceRequest.newBuilder().setMemory("64Mi\0").build()));
        spoilt.put("tasks[0].resources.gpus", t -> t.setResources(ResourceRequest.newBuilder().setGpus(Integer.MAX_VALUE).build()));
        spoilt.forEach((field, spoil) -> {
            TaskSpec.Builder t = task("a");
            spoil.accept(t);
            Map<String, String> errors = errors(job(t));
            assertEquals(Set.of(field), errors.keySet(), field + ": " + errors);
        });
        TaskSpec.Builder longImage = task("a").setImage("flash/" + "a".repeat(300) + ":1");
        assertTrue(errors(job(longImage)).get("tasks[0].image").contains("255"));
    }

    @Test
    void acceptsWhatRunsFine() {
        ValidationResult ok = validator.validate(job(task("a").setEnv(Map.of("THREADS", "2", "_x9", "a=b c")).setWorkdir("/workspace/out")
                .setTimeout("1s").setResources(ResourceRequest.newBuilder().setMemory("64MiB").setGpus(0).build())), "job-1", "sub-1", 5L);
        assertTrue(ok.isAccepted(), () -> ok.errors().toString());
        assertEquals(64L << 20, ok.accepted().getTasks().get(0).getResources().getMemoryBytes());
    }
}
