package io.flash.common.cache;

import io.flash.schema.Fetch;
import io.flash.schema.Mount;
import io.flash.schema.TaskDefinition;
import io.flash.schema.Upload;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The cache key of a unit: a hash of what determines its result (docs/caching.md, recipe v2). The
 * unit's spec gives what the job file says; {@link Identities} gives what the spec only names — the
 * image by digest, each input and fetched file by its content — so the key changes when any of them
 * does and not otherwise. An input an upstream task made is named by that task's key and the path
 * ({@link #madeBy}), and every task it depends on by that task's key ({@code afterKeys}): a Merkle
 * chain, so a change early in a DAG changes every key after it, whatever a step reads of the shared
 * workspace, without hashing a large file twice. What only decides where and how fast a unit runs (resources, timeout,
 * retries, framework, labels, spot) is not in the key.
 */
public final class CacheKeys {

    /** Named in every key: a recipe that changes gets a new version, and old entries simply miss. */
    public static final String RECIPE = "v2";

    /**
     * What a node names, last among a unit's undeclared writes, when its job workspace was too large
     * to look through after the unit succeeded: it is then not indexed (docs/caching.md).
     */
    public static final String NOT_LOOKED_THROUGH = "(the workspace has more files than are looked through)";

    /** Set by the executor for each attempt, never by a job file: not what the result depends on. */
    static final Set<String> PER_ATTEMPT_ENV = Set.of("FLASH_JOB_ID", "FLASH_TASK_ID", "FLASH_ATTEMPT_ID");

    /** What the spec names and only the place that runs it can resolve. */
    public interface Identities {
        /** The image's repository digest ({@code sha256:…}), or a local image's ID. */
        String image(String image);

        /** A workspace file the unit reads: {@link #madeBy} for one an upstream task made, else {@link #content}. */
        String input(String path);

        /** A fetched file: its inline content's hash, an object's ETag and length, or a shared file's hash. */
        String fetch(Fetch fetch);
    }

    private CacheKeys() {
    }

    /**
     * @param unit the unit as it runs (validated: the command is its argv, a shell line already
     *             {@code sh -c}); a shard's definition carries its own FLASH_SHARD_* variables
     */
    public static String key(TaskDefinition unit, Identities identities) {
        Canonical c = new Canonical();
        c.put("recipe", RECIPE);
        c.put("image", identities.image(unit.getImage()));
        c.put("command", unit.getCommand());
        Map<String, String> env = new TreeMap<>(unit.getEnv());
        env.keySet().removeAll(PER_ATTEMPT_ENV);
        env.forEach((name, value) -> c.put("env " + name, value));
        c.put("workdir", unit.getWorkdir());
        for (String path : unit.getInputs().stream().sorted().toList()) c.put("input " + path, identities.input(path));
        // The workspace is shared: a step may read what a step before it wrote without declaring it.
        new TreeMap<>(unit.getAfterKeys()).forEach((task, key) -> c.put("after " + task, key));
        for (Fetch f : unit.getFetches()) c.put("fetch " + f.getTo() + (f.getDirectory() ? "/" : ""), identities.fetch(f));
        for (Mount m : unit.getMounts()) c.put("mount " + m.getPath(), m.getSource() + (m.getReadOnly() ? " ro" : " rw"));
        c.put("outputs", unit.getOutputs().stream().sorted().toList());
        c.put("stdout", unit.getStdoutTo());
        c.put("stderr", unit.getStderrTo());
        for (Upload u : unit.getUploads()) c.put("upload " + u.getFrom(), u.getUrl() + " " + u.getPrefix());
        c.put("store", unit.getStore());
        c.put("retry on", unit.getRetryOnExitCodes().stream().sorted().map(String::valueOf).toList());
        c.put("fail on", unit.getFailOnExitCodes().stream().sorted().map(String::valueOf).toList());
        return RECIPE + ":" + c.digest();
    }

    /**
     * The key of a task of several units (a scatter's shards, in shard order): what a later task
     * that reads their outputs is keyed by. Of one unit: that unit's key.
     */
    public static String ofUnits(List<String> unitKeys) {
        if (unitKeys.size() == 1) return unitKeys.get(0);
        Canonical c = new Canonical();
        c.put("recipe", RECIPE);
        c.put("units", unitKeys);
        return RECIPE + ":" + c.digest();
    }

    /** The record key of a result in the index (flash.cache.entries): its scope and its cache key. */
    public static String entryId(String scope, String key) {
        return scope + "|" + key;
    }

    /** The identity of a workspace file an upstream unit of this key wrote at this path. */
    public static String madeBy(String upstreamKey, String path) {
        return "made by " + upstreamKey + " at " + path;
    }

    /** The identity of bytes by their content. */
    public static String content(byte[] bytes) {
        try {
            return content(new ByteArrayInputStream(bytes));
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array is never unreadable
        }
    }

    /** The identity of a stream's bytes by their content, read to its end in blocks (a file of gigabytes too). */
    public static String content(InputStream in) throws IOException {
        MessageDigest digest = sha256();
        byte[] block = new byte[1 << 16];
        for (int n; (n = in.read(block)) != -1; ) digest.update(block, 0, n);
        return "sha256:" + HexFormat.of().formatHex(digest.digest());
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    /**
     * Each part as its name and value, both length-prefixed, so that no two recipes write the same
     * bytes ("a" + "bc" and "ab" + "c" differ) and an absent value differs from an empty one.
     */
    private static final class Canonical {
        private final MessageDigest digest = sha256();

        void put(String name, String value) {
            write(name);
            if (value == null) digest.update((byte) 0);
            else {
                digest.update((byte) 1);
                write(value);
            }
        }

        void put(String name, List<String> values) {
            write(name);
            write(Integer.toString(values.size()));
            values.forEach(this::write);
        }

        private void write(String s) {
            byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
            digest.update(Integer.toString(bytes.length).getBytes(StandardCharsets.US_ASCII));
            digest.update((byte) ':');
            digest.update(bytes);
        }

        String digest() {
            return HexFormat.of().formatHex(digest.digest());
        }
    }
}
