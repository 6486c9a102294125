package io.flash.executor.store;

import io.flash.common.store.ObjectLocation;
import io.flash.common.testing.S3Server;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.*;

/** The store client and the node cache against a real S3 API server (s3proxy, in this JVM). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InputCacheTest {

    @TempDir
    Path dir;
    private S3Server server;
    private ObjectStore store;

    @BeforeAll
    void start() throws Exception {
        server = new S3Server(0, Files.createTempDirectory("s3"));
        server.createBucket("genomes");
        store = new ObjectStore(new ObjectStore.Settings(server.endpoint(), "us-east-1", S3Server.ACCESS_KEY,
                S3Server.SECRET_KEY, true));
    }

    @AfterAll
    void stop() throws Exception {
        store.close();
        server.close();
    }

    private ObjectLocation put(String key, int bytes) throws Exception {
        Path file = dir.resolve("upload-" + key.replace('/', '_'));
        Files.write(file, new byte[bytes]);
        ObjectLocation at = new ObjectLocation("genomes", key);
        store.upload(file, at);
        return at;
    }

    @Test
    void roundTripsAnObjectAndSaysWhenOneIsMissing() throws Exception {
        Path file = dir.resolve("ref.fa");
        Files.writeString(file, ">lambda\nACGT\n");
        store.upload(file, new ObjectLocation("genomes", "ref/lambda.fa"));
        Path back = dir.resolve("back/lambda.fa");
        store.download(new ObjectLocation("genomes", "ref/lambda.fa"), back);
        assertEquals(">lambda\nACGT\n", Files.readString(back));

        var missing = assertThrows(ObjectStore.NotFound.class, () -> store.download(new ObjectLocation("genomes", "nope"), dir.resolve("x")));
        assertEquals("s3://genomes/nope does not exist", missing.getMessage());
        assertThrows(ObjectStore.NotFound.class, () -> store.etag(new ObjectLocation("no-such-bucket", "x")));
    }

    @Test
    void keepsTheCacheUnderItsCapEvictingTheLeastRecentlyUsed() throws Exception {
        InputCache cache = new InputCache(store, dir.resolve("cache"), 2_500);
        ObjectLocation a = put("cache/a", 1_000), b = put("cache/b", 1_000), c = put("cache/c", 1_000);
        cache.fetch(a, dir.resolve("w1/a"));
        cache.fetch(b, dir.resolve("w1/b"));
        Thread.sleep(20);
        cache.fetch(a, dir.resolve("w2/a")); // a is now the most recently used
        Thread.sleep(20);
        cache.fetch(c, dir.resolve("w2/c"));
        assertEquals(2_000, cache.size(), "b went to make room for c");
        assertTrue(Files.exists(dir.resolve("w2/a")) && Files.exists(dir.resolve("w2/c")));
        assertEquals(1_000, Files.size(dir.resolve("w1/b")), "what an attempt got is its own copy");

        ObjectLocation big = put("cache/big", 3_000);
        cache.fetch(big, dir.resolve("w3/big"));
        assertEquals(3_000, Files.size(dir.resolve("w3/big")));
        assertEquals(2_000, cache.size(), "an object larger than the cap is not cached");
    }
}
