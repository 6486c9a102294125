package io.flash.common.cache;

import io.flash.schema.Capacity;
import io.flash.schema.Fetch;
import io.flash.schema.TaskDefinition;
import io.flash.schema.Upload;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CacheKeysTest {

    private static final List<String> SHELL = List.of("sh", "-c", "bwa mem ref.fa reads.fq > out.sam");

    /** Identities as a node would resolve them: a digest per image, a hash or upstream key per file. */
    private final Map<String, String> files = new HashMap<>(Map.of("ref.fa", "etag:abc;length:3000", "reads.fq", CacheKeys.content("@r1".getBytes(StandardCharsets.UTF_8))));
    private final Map<String, String> digests = new HashMap<>(Map.of("biocontainers/bwa:0.7.17", "sha256:1111"));
    private final CacheKeys.Identities identities = new CacheKeys.Identities() {
        public String image(String image) {
            return digests.get(image);
        }

        public String input(String path) {
            return files.get(path);
        }

        public String fetch(Fetch fetch) {
            return files.get(fetch.getTo());
        }
    };

    /** An alignment as ingest validates it, with the fetches and uploads a TES client would add (a job file has none). */
    private static TaskDefinition unit() {
        return TaskDefinition.newBuilder().setName("align").setImage("biocontainers/bwa:0.7.17").setCommand(SHELL)
                .setEnv(new HashMap<>(Map.of("THREADS", "2", "SAMPLE", "s1"))).setWorkdir("/workspace")
                .setInputs(List.of("ref.fa", "reads.fq")).setOutputs(List.of("out.sam"))
                .setResources(new Capacity(2.0, 4L << 30, 0L, 0))
                .setFetches(new ArrayList<>(List.of(Fetch.newBuilder().setUrl("s3://lab/ref.fa").setTo("ref.fa").build(),
                        Fetch.newBuilder().setContent("@r1").setTo("reads.fq").build())))
                .setUploads(new ArrayList<>(List.of(Upload.newBuilder().setFrom("out.sam").setUrl("s3://lab/out.sam").build())))
                .build();
    }

    private String key(Consumer<TaskDefinition> change) throws Exception {
        TaskDefinition unit = unit();
        change.accept(unit);
        return CacheKeys.key(unit, identities);
    }

    @Test
    void theSameUnitHasTheSameKeyWhateverTheOrderOfItsEnvironment() throws Exception {
        String key = key(u -> { });
        assertTrue(key.matches("v2:[0-9a-f]{64}"), key);
        assertEquals(key, key(u -> {
            Map<String, String> reversed = new LinkedHashMap<>();
            reversed.put("SAMPLE", "s1");
            reversed.put("THREADS", "2");
            u.setEnv(reversed);
        }));
        assertEquals(key, key(u -> u.setOutputs(List.of("out.sam"))));
    }

    @Test
    void everythingThatDeterminesTheResultChangesTheKey() throws Exception {
        String key = key(u -> { });
        Map<String, Consumer<TaskDefinition>> changes = new LinkedHashMap<>();
        changes.put("command", u -> u.setCommand(List.of("sh", "-c", "bwa mem -M ref.fa reads.fq > out.sam")));
        changes.put("argv instead of shell", u -> u.setCommand(List.of("bwa", "mem", "ref.fa", "reads.fq")));
        changes.put("an environment value", u -> u.getEnv().put("THREADS", "4"));
        changes.put("a new variable", u -> u.getEnv().put("EXTRA", ""));
        changes.put("a shard's range", u -> u.getEnv().put("FLASH_SHARD_FROM", "10"));
        changes.put("the working directory", u -> u.setWorkdir("/workspace/run"));
        changes.put("an output", u -> u.setOutputs(List.of("out.sam", "out.bai")));
        changes.put("stdout kept", u -> u.setStdoutTo("align.log"));
        changes.put("an upload's destination", u -> u.getUploads().get(0).setUrl("s3://lab/elsewhere.sam"));
        changes.put("the exit codes retried", u -> u.setRetryOnExitCodes(List.of(137)));
        changes.put("the exit codes failed at once", u -> u.setFailOnExitCodes(List.of(2)));
        changes.put("an input more", u -> u.setInputs(List.of("ref.fa", "reads.fq", "ref.fa.fai")));
        changes.put("the job's object store", u -> u.setStore("s3://lab/runs"));
        changes.put("a task it runs after", u -> u.setAfterKeys(Map.of("index", "v2:aaaa")));
        for (var change : changes.entrySet()) assertNotEquals(key, key(change.getValue()), change.getKey());

        digests.put("biocontainers/bwa:0.7.17", "sha256:2222"); // the same tag, pushed again with other content
        assertNotEquals(key, key(u -> { }), "an image re-tagged to other content");
        digests.put("biocontainers/bwa:0.7.17", "sha256:1111");
        files.put("reads.fq", CacheKeys.content("@r2".getBytes(StandardCharsets.UTF_8)));
        assertNotEquals(key, key(u -> { }), "an input's content");
    }

    @Test
    void whereAndHowFastItRunsDoesNotChangeTheKey() throws Exception {
        String key = key(u -> { });
        assertEquals(key, key(u -> u.getResources().setCpu(8.0)));
        assertEquals(key, key(u -> u.getResources().setMemoryBytes(32L << 30)));
        assertEquals(key, key(u -> u.setTimeoutSeconds(7200L)));
        assertEquals(key, key(u -> u.setMaxAttempts(5)));
        assertEquals(key, key(u -> u.setFramework("slurm")));
        assertEquals(key, key(u -> u.setNodeLabels(Map.of("zone", "b"))));
        assertEquals(key, key(u -> u.setSpotAllowed(false)));
        assertEquals(key, key(u -> u.setUpstreamKeys(Map.of("reads.fq", "v1:ffff"))),
                "upstream keys reach the key only through the identities the node resolves from them");
        assertEquals(key, key(u -> u.getEnv().put("FLASH_ATTEMPT_ID", "job-1.align.2")), "set per attempt by the executor");
    }

    /** A change early in a DAG reaches every key after it through the inputs' upstream keys, with no file hashed again. */
    /** The workspace is shared: what a step runs after is in its key, whether or not it declares what it reads of it. */
    @Test
    void theKeyOfATaskItRunsAfterIsInTheKeyDeclaredInputOrNot() throws Exception {
        String after = key(u -> u.setAfterKeys(Map.of("index", "v2:aaaa", "simulate", "v2:bbbb")));
        assertEquals(after, key(u -> {
            Map<String, String> reversed = new LinkedHashMap<>();
            reversed.put("simulate", "v2:bbbb");
            reversed.put("index", "v2:aaaa");
            u.setAfterKeys(reversed);
        }), "whatever the map's order");
        assertNotEquals(after, key(u -> u.setAfterKeys(Map.of("index", "v2:aaaa", "simulate", "v2:cccc"))), "an upstream step changed");
    }

    @Test
    void anUpstreamKeyThatChangesChangesTheKeysThatReadItsOutputs() throws Exception {
        files.put("reads.fq", CacheKeys.madeBy("v1:aaaa", "reads.fq"));
        String key = key(u -> { });
        files.put("reads.fq", CacheKeys.madeBy("v1:bbbb", "reads.fq"));
        assertNotEquals(key, key(u -> { }));
        files.put("reads.fq", CacheKeys.madeBy("v1:aaaa", "reads.fq"));
        assertEquals(key, key(u -> { }));
    }

    @Test
    void aScatterIsKeyedByAllItsShardsInOrderAndOneUnitByItsOwnKey() {
        assertEquals("v1:aaaa", CacheKeys.ofUnits(List.of("v1:aaaa")));
        String both = CacheKeys.ofUnits(List.of("v1:aaaa", "v1:bbbb"));
        assertNotEquals(both, CacheKeys.ofUnits(List.of("v1:bbbb", "v1:aaaa")));
        assertNotEquals(both, CacheKeys.ofUnits(List.of("v1:aaaa", "v1:cccc")));
        assertEquals(both, CacheKeys.ofUnits(List.of("v1:aaaa", "v1:bbbb")));
    }

    @Test
    void partsCannotBeShiftedIntoEachOther() throws Exception {
        assertNotEquals(key(u -> u.setEnv(Map.of("A", "bc"))), key(u -> u.setEnv(Map.of("AB", "c"))));
        assertNotEquals(key(u -> u.setWorkdir(null)), key(u -> u.setWorkdir("")));
    }
}
