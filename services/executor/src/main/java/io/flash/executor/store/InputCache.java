package io.flash.executor.store;

import io.flash.common.store.ObjectLocation;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.util.*;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Objects fetched for attempts, kept on the node so that the next attempt reading the same object
 * (a reference genome, an index) copies it locally instead of downloading it again. An entry is
 * named by the object's location and entity tag, so a changed object is fetched anew. Total size
 * is capped: after each fetch the least recently used entries go until the cache fits
 * {@code maxBytes}; an object larger than the cap is not cached at all.
 */
public final class InputCache {

    private final ObjectStore store;
    private final Path dir;
    private final long maxBytes;
    private final Map<String, Object> locks = new ConcurrentHashMap<>();

    public InputCache(ObjectStore store, Path dir, long maxBytes) {
        this.store = store;
        this.dir = dir;
        this.maxBytes = maxBytes;
    }

    /** Puts a copy of the object at {@code target} (a path the attempt owns). */
    public void fetch(ObjectLocation from, Path target) throws Exception {
        String etag = store.etag(from);
        String name = sha256(from + "\n" + etag);
        Files.createDirectories(target.toAbsolutePath().getParent());
        synchronized (locks.computeIfAbsent(name, k -> new Object())) {
            Path cached = dir.resolve(name);
            if (!Files.exists(cached)) {
                Files.createDirectories(dir);
                store.download(from, cached);
                if (Files.size(cached) > maxBytes) {
                    Files.move(cached, target, StandardCopyOption.REPLACE_EXISTING);
                    return;
                }
            }
            Files.setLastModifiedTime(cached, FileTime.fromMillis(System.currentTimeMillis()));
            // A copy, not a link: the attempt may write to its inputs without touching the cache.
            Files.copy(cached, target, StandardCopyOption.REPLACE_EXISTING);
        }
        evict();
    }

    /** Bytes the cache holds now. */
    public long size() throws IOException {
        return entries().stream().mapToLong(Entry::bytes).sum();
    }

    private synchronized void evict() throws IOException {
        List<Entry> entries = entries();
        long total = entries.stream().mapToLong(Entry::bytes).sum();
        entries.sort(Comparator.comparingLong(Entry::lastUsed));
        for (Entry e : entries) {
            if (total <= maxBytes) break;
            if (Files.deleteIfExists(e.path())) total -= e.bytes();
        }
    }

    private record Entry(Path path, long bytes, long lastUsed) {
    }

    private List<Entry> entries() throws IOException {
        List<Entry> entries = new ArrayList<>();
        if (!Files.isDirectory(dir)) return entries;
        try (var files = Files.list(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                if (p.getFileName().toString().endsWith(".part")) continue;
                try {
                    entries.add(new Entry(p, Files.size(p), Files.getLastModifiedTime(p).toMillis()));
                } catch (IOException gone) {
                    // evicted or replaced meanwhile
                }
            }
        }
        return entries;
    }

    private static String sha256(String text) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    }
}
