package io.flash.e2e;

import io.flash.schema.*;


import static io.flash.common.testing.AvroBytes.concat;
import static io.flash.common.testing.AvroBytes.varint;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.*;
import java.util.function.Consumer;

/**
 * Records a hostile or careless client can publish, generated rather than stored: wire-level
 * garbage for the ingest and commands topics (Avro whose lengths or counts claim gigabytes, endless
 * varints, unknown schema ids, trailing bytes, other record types) and well-formed submissions
 * whose values Docker, the kernel or the executor would refuse. Each case says what must happen to it.
 */
public final class HostileCorpus {

    /** A raw record and what Flash must answer: a rejection naming {@code field}, or a dead letter. */
    public record Case(String name, byte[] value, String field) {
        public boolean deadLetter() {
            return field == null;
        }
    }

    private final int submissionSchemaId;
    private final int commandSchemaId;
    private final byte[] validSubmission;
    private final byte[] validCommand;

    /**
     * @param validSubmission a JobSubmission as the registry serializer wrote it (magic, id, body)
     * @param validCommand    a JobCommand likewise
     */
    public HostileCorpus(byte[] validSubmission, byte[] validCommand) {
        this.validSubmission = validSubmission;
        this.validCommand = validCommand;
        this.submissionSchemaId = ByteBuffer.wrap(validSubmission, 1, 4).getInt();
        this.commandSchemaId = ByteBuffer.wrap(validCommand, 1, 4).getInt();
    }

    /** Garbage for the ingest topic: each must be rejected with field "(record)". */
    public List<Case> ingestWire() {
        List<Case> cases = new ArrayList<>();
        String f = "(record)";
        cases.add(new Case("empty value", new byte[0], f));
        cases.add(new Case("plain text", "{\"name\":\"json is not avro\"}".getBytes(StandardCharsets.UTF_8), f));
        cases.add(new Case("wrong magic byte", concat(new byte[]{1}, Arrays.copyOfRange(validSubmission, 1, validSubmission.length)), f));
        cases.add(new Case("unknown schema id", concat(header(0x7fff_ff00), Arrays.copyOfRange(validSubmission, 5, validSubmission.length)), f));
        cases.add(new Case("header only", header(submissionSchemaId), f));
        // The 14-byte record that stopped ingest: submissionId union branch 1, then a string of 2^31-9 bytes.
        cases.add(new Case("string claiming 2^31-9 bytes", concat(header(submissionSchemaId), varint(1), varint(Integer.MAX_VALUE - 8L)), f));
        cases.add(new Case("name claiming 10^9 bytes", concat(header(submissionSchemaId), varint(0), varint(1_000_000_000L)), f));
        cases.add(new Case("negative string length", concat(header(submissionSchemaId), varint(1), varint(-5)), f));
        byte[] beforeTasks = concat(header(submissionSchemaId), varint(0), varint(1), new byte[]{'x'}, varint(0), varint(0), varint(0));
        byte[] beforeTasksNoLabels = concat(beforeTasks, varint(0), varint(0), varint(0));
        cases.add(new Case("tasks array claiming 2^31-9 items", concat(beforeTasksNoLabels, varint(Integer.MAX_VALUE - 8L)), f));
        cases.add(new Case("tasks array claiming 10^8 items", concat(beforeTasksNoLabels, varint(100_000_000L)), f));
        cases.add(new Case("tasks array claiming 2^40 items", concat(beforeTasksNoLabels, varint(1L << 40)), f));
        cases.add(new Case("labels map claiming 10^9 entries", concat(beforeTasks, varint(1_000_000_000L)), f));
        cases.add(new Case("endless varint", concat(header(submissionSchemaId), varint(1), repeat((byte) 0xff, 12)), f));
        cases.add(new Case("truncated body", Arrays.copyOf(validSubmission, 5 + (validSubmission.length - 5) / 2), f));
        cases.add(new Case("trailing bytes after a valid record", concat(validSubmission, new byte[]{0, 0, 0}), f));
        cases.add(new Case("a JobCommand on the ingest topic", validCommand, f));
        cases.add(new Case("larger than the spec limit", concat(header(submissionSchemaId), repeat((byte) 'a', 600 * 1024)), f));
        Random random = new Random(42);
        for (int i = 0; i < 5; i++) {
            byte[] noise = new byte[16 + random.nextInt(200)];
            random.nextBytes(noise);
            cases.add(new Case("random body " + i, concat(header(submissionSchemaId), noise), f));
        }
        return cases;
    }

    /** Well-formed submissions with values that cannot run: each must be rejected naming its field. */
    public List<Map.Entry<JobSubmission, String>> ingestValues() {
        List<Map.Entry<JobSubmission, String>> cases = new ArrayList<>();
        add(cases, "tasks[0].resources.memory", t -> t.getResources().setMemory("64Mi\0"));
        add(cases, "tasks[0].resources.memory", t -> t.getResources().setMemory("64 Mi"));
        add(cases, "tasks[0].resources.memory", t -> t.getResources().setMemory("64mb"));
        add(cases, "tasks[0].resources.cpu", t -> t.getResources().setCpu(Double.NaN));
        add(cases, "tasks[0].resources.cpu", t -> t.getResources().setCpu(Double.POSITIVE_INFINITY));
        add(cases, "tasks[0].resources.gpus", t -> t.getResources().setGpus(Integer.MAX_VALUE));
        add(cases, "tasks[0].resources.gpus", t -> t.getResources().setGpus(-1));
        add(cases, "tasks[0].image", t -> t.setImage("flash/shell:1\n"));
        add(cases, "tasks[0].image", t -> t.setImage(" flash/shell:1"));
        add(cases, "tasks[0].image", t -> t.setImage("flash/" + "a".repeat(5000) + ":1"));
        add(cases, "tasks[0].image", t -> t.setImage("Flash/Shell:1"));
        add(cases, "tasks[0].env.A=B", t -> t.setEnv(Map.of("A=B", "x")));
        add(cases, "tasks[0].env.A B", t -> t.setEnv(Map.of("A B", "x")));
        add(cases, "tasks[0].env.A\\u0000", t -> t.setEnv(Map.of("A\0", "x")));
        add(cases, "tasks[0].env.", t -> t.setEnv(Map.of("", "x")));
        add(cases, "tasks[0].env.SAFE", t -> t.setEnv(Map.of("SAFE", "a\0b")));
        add(cases, "tasks[0].env.FLASH_JOB_ID", t -> t.setEnv(Map.of("FLASH_JOB_ID", "spoofed")));
        add(cases, "tasks[0].inputs[0]", t -> t.setInputs(List.of("in\0put.txt")));
        add(cases, "tasks[0].outputs[0]", t -> t.setOutputs(List.of("out\0put.txt")));
        add(cases, "tasks[0].outputs[0]", t -> t.setOutputs(List.of("../../etc/passwd")));
        add(cases, "tasks[0].workdir", t -> t.setWorkdir("../../"));
        add(cases, "tasks[0].workdir", t -> t.setWorkdir("/work\0"));
        add(cases, "tasks[0].timeout", t -> t.setTimeout("0"));
        add(cases, "tasks[0].timeout", t -> t.setTimeout("-5s"));
        add(cases, "tasks[0].shell", t -> t.setShell("echo a\0b"));
        add(cases, "tasks[0].command[1]", t -> {
            t.setShell(null);
            t.setCommand(List.of("echo", "a\0b"));
        });
        add(cases, "tasks[0].maxAttempts", t -> t.setMaxAttempts(Integer.MAX_VALUE));
        add(cases, "tasks[0].scatter.shardSize", t -> t.setScatter(ScatterSpec.newBuilder().setFrom(0L).setTo(Long.MAX_VALUE / 2)
                .setShardSize(1).build()));
        add(cases, "tasks[0].dependsOn[0]", t -> t.setDependsOn(List.of("t")));
        JobSubmission many = JobSubmission.newBuilder().setSubmissionId("hostile-1001-tasks").setName("many").setTasks(new ArrayList<>()).build();
        for (int i = 0; i < 1001; i++) many.getTasks().add(task("t" + i));
        cases.add(Map.entry(many, "tasks"));
        return cases;
    }

    /** Garbage for the commands topic: each must be dead-lettered by the planner, which goes on. */
    public List<Case> commandsWire() {
        List<Case> cases = new ArrayList<>();
        cases.add(new Case("plain text command", "cancel everything".getBytes(StandardCharsets.UTF_8), null));
        cases.add(new Case("jobId claiming 2^31-9 bytes", concat(header(commandSchemaId), varint(Integer.MAX_VALUE - 8L)), null));
        cases.add(new Case("unknown schema id", concat(header(0x7fff_ff01), Arrays.copyOfRange(validCommand, 5, validCommand.length)), null));
        cases.add(new Case("trailing bytes after a valid command", concat(validCommand, new byte[]{1, 2}), null));
        cases.add(new Case("a JobSubmission on the commands topic", validSubmission, null));
        cases.add(new Case("endless varint", concat(header(commandSchemaId), repeat((byte) 0x80, 11)), null));
        return cases;
    }

    private static void add(List<Map.Entry<JobSubmission, String>> cases, String field, Consumer<TaskSpec> spoil) {
        TaskSpec task = task("t");
        spoil.accept(task);
        JobSubmission job = JobSubmission.newBuilder().setSubmissionId("hostile-" + cases.size() + "-" + UUID.randomUUID())
                .setName("hostile-values").setOwner("e2e").setTasks(new ArrayList<>(List.of(task))).build();
        cases.add(Map.entry(job, field));
    }

    private static TaskSpec task(String name) {
        return TaskSpec.newBuilder().setName(name).setImage("flash/shell:1").setShell("true")
                .setResources(ResourceRequest.newBuilder().setCpu(0.25).setMemory("32Mi").build()).build();
    }

    private static byte[] repeat(byte b, int n) {
        byte[] out = new byte[n];
        Arrays.fill(out, b);
        return out;
    }

    private static byte[] header(int schemaId) {
        return ByteBuffer.allocate(5).put((byte) 0).putInt(schemaId).array();
    }
}
