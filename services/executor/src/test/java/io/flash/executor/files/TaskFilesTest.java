package io.flash.executor.files;

import com.sun.net.httpserver.HttpServer;
import io.flash.common.store.ObjectLocation;
import io.flash.common.testing.S3Server;
import io.flash.executor.engine.ContainerRuntime;
import io.flash.executor.store.InputCache;
import io.flash.executor.store.ObjectStore;
import io.flash.schema.FailureClass;
import io.flash.schema.Fetch;
import io.flash.schema.Mount;
import io.flash.schema.Upload;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.junit.jupiter.api.Assertions.*;

/** Fetches and uploads against a real S3 API server (s3proxy), a real HTTP server and the file system. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TaskFilesTest {

    private S3Server s3;
    private ObjectStore store;
    private HttpServer http;
    private Path shared, workspace;
    private TaskFiles files;

    @BeforeAll
    void start() throws Exception {
        s3 = new S3Server(0, Files.createTempDirectory("s3"));
        s3.createBucket("refs");
        store = new ObjectStore(new ObjectStore.Settings(s3.endpoint(), "us-east-1", S3Server.ACCESS_KEY, S3Server.SECRET_KEY, true));
        InputCache cache = new InputCache(store, Files.createTempDirectory("cache"), 1 << 20);
        http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        http.createContext("/reads.fq", x -> {
            byte[] body = "@r1\nACGT\n".getBytes();
            x.sendResponseHeaders(200, body.length);
            x.getResponseBody().write(body);
            x.close();
        });
        http.createContext("/hop", x -> {
            x.getResponseHeaders().add("Location", "http://169.254.169.254/latest/meta-data/");
            x.sendResponseHeaders(302, -1);
            x.close();
        });
        http.start();
        shared = Files.createTempDirectory("shared");
        workspace = Files.createTempDirectory("workspace");
        files = new TaskFiles(() -> store, () -> cache, shared, new Scratch(workspace.getParent(), "n1", TaskOwner.of(ContainerRuntime.TASK_USER)),
                AddressRule.of("127.0.0.1/32"));
        Path upload = Files.createTempFile("obj", "");
        for (String key : List.of("genome.fa", "db/a.idx", "db/sub/b.idx")) {
            Files.writeString(upload, "content of " + key);
            store.upload(upload, new ObjectLocation("refs", key));
        }
    }

    @AfterAll
    void stop() throws Exception {
        http.stop(0);
        store.close();
        s3.close();
    }

    private String url(String path) {
        return "http://127.0.0.1:" + http.getAddress().getPort() + path;
    }

    @Test
    void everyKindOfSourceLandsAtItsWorkspacePath() throws Exception {
        Files.createDirectories(shared.resolve("seeds"));
        Files.writeString(shared.resolve("seeds/s1"), "seed");
        StagingFailure failure = files.stage(workspace, List.of(
                new Fetch(null, "inline text", "tes/fs/data/a.txt", false),
                new Fetch("s3://refs/genome.fa", null, "tes/fs/ref/genome.fa", false),
                new Fetch("s3://refs/db/", null, "tes/fs/db", true),
                new Fetch("file://" + shared.resolve("seeds"), null, "tes/fs/seeds", true),
                new Fetch(url("/reads.fq"), null, "tes/fs/reads.fq", false)),
                List.of(new Mount("/vol", "tes/fs/vol", false), new Mount("/ref/genome.fa", "tes/fs/ref/genome.fa", true)));
        assertNull(failure, () -> failure.reason());
        assertEquals("inline text", Files.readString(workspace.resolve("tes/fs/data/a.txt")));
        assertEquals("content of genome.fa", Files.readString(workspace.resolve("tes/fs/ref/genome.fa")));
        assertEquals("content of db/sub/b.idx", Files.readString(workspace.resolve("tes/fs/db/sub/b.idx")));
        assertEquals("seed", Files.readString(workspace.resolve("tes/fs/seeds/s1")));
        assertEquals("@r1\nACGT\n", Files.readString(workspace.resolve("tes/fs/reads.fq")));
        assertTrue(Files.isDirectory(workspace.resolve("tes/fs/vol")), "a writable mount's source is created empty");
    }

    /** A key the store does not know is the operator's to mend: no retry, not the user's failure, the settings named. */
    @Test
    void aStoreThatRefusesTheNodesKeyIsAConfigurationErrorNotARetry() throws Exception {
        try (ObjectStore wrongKey = new ObjectStore(new ObjectStore.Settings(s3.endpoint(), "us-east-1", S3Server.ACCESS_KEY, "not-the-secret", true))) {
            InputCache cache = new InputCache(wrongKey, Files.createTempDirectory("cache2"), 1 << 20);
            TaskFiles misconfigured = new TaskFiles(() -> wrongKey, () -> cache,
                    shared, new Scratch(workspace.getParent(), "n2", TaskOwner.of(ContainerRuntime.TASK_USER)), AddressRule.of(""));
            StagingFailure f = misconfigured.stage(workspace, List.of(new Fetch("s3://refs/genome.fa", null, "tes/fs/g.fa", false)), List.of());
            assertNotNull(f);
            assertEquals(FailureClass.UNSCHEDULABLE, f.failureClass(), f.reason());
            assertTrue(f.reason().contains("refused this node's key (SignatureDoesNotMatch)") && f.reason().contains("FLASH_S3_SECRET_KEY"),
                    f.reason());
            assertTrue(wrongKey.problem().contains("SignatureDoesNotMatch"), "said once at start as well");
        }
        assertNull(store.problem(), "the right key: the store answers");
    }

    @Test
    void aMissingOrForbiddenSourceIsTheTasksOwnFailure() {
        List<Fetch> bad = List.of(new Fetch("s3://refs/absent", null, "x1", false), new Fetch(url("/absent"), null, "x2", false),
                new Fetch("file:///etc/passwd", null, "x3", false), new Fetch("file://" + shared.resolve("none"), null, "x4", false));
        for (Fetch fetch : bad) {
            StagingFailure f = files.stage(workspace, List.of(fetch), List.of());
            assertNotNull(f, fetch.getUrl());
            assertEquals(FailureClass.USER, f.failureClass(), f.reason());
        }
        assertTrue(files.stage(workspace, List.of(bad.get(2)), List.of()).reason().contains("shared root"));
        StagingFailure unreachable = files.stage(workspace, List.of(new Fetch("http://127.0.0.1:1/x", null, "x5", false)), List.of());
        assertEquals(FailureClass.INFRASTRUCTURE, unreachable.failureClass(), "a server that does not answer is not the user's fault");
        StagingFailure noSource = files.stage(workspace, List.of(), List.of(new Mount("/in", "never/placed", true)));
        assertEquals(FailureClass.USER, noSource.failureClass());
    }

    @Test
    void aRedirectIsCheckedAgainAndALinkIsNeverFollowedEitherWay() throws Exception {
        StagingFailure hop = files.stage(workspace, List.of(new Fetch(url("/hop"), null, "x6", false)), List.of());
        assertEquals(FailureClass.USER, hop.failureClass());
        assertTrue(hop.reason().contains("'metadata endpoint'"), hop.reason());
        Path host = Files.createTempDirectory("host");
        Files.writeString(host.resolve("secret"), "root only");
        Files.createDirectories(workspace.resolve("tes/fs/links"));
        Files.createSymbolicLink(workspace.resolve("tes/fs/links/leak"), host.resolve("secret"));
        Files.createSymbolicLink(workspace.resolve("tes/fs/links/drop"), host.resolve("planted"));
        Published leak = files.publish(workspace, List.of(new Upload("tes/fs/links/leak", "file://" + shared.resolve("leak"), null,
                "/links/leak")));
        assertEquals(FailureClass.USER, leak.failure().failureClass());
        assertTrue(leak.failure().reason().contains("/links/leak is a symbolic link"), leak.failure().reason());
        assertFalse(Files.exists(shared.resolve("leak")));
        StagingFailure drop = files.stage(workspace, List.of(new Fetch(null, "payload", "tes/fs/links/drop", false)), List.of());
        assertEquals(FailureClass.USER, drop.failureClass());
        assertFalse(Files.exists(host.resolve("planted")), "nothing was written through the link");
        StagingFailure mount = files.stage(workspace, List.of(), List.of(new Mount("/in", "tes/fs/links/leak", true)));
        assertEquals(FailureClass.USER, mount.failureClass());
        assertTrue(mount.reason().contains("never a link"), mount.reason());
    }

    @Test
    void uploadsSendFilesDirectoriesAndGlobMatches() throws Exception {
        Path out = workspace.resolve("tes/fs/out");
        Files.createDirectories(out.resolve("reports/deep"));
        Files.writeString(out.resolve("result.txt"), "42");
        Files.writeString(out.resolve("reports/a.html"), "a");
        Files.writeString(out.resolve("reports/deep/b.html"), "bb");
        Files.writeString(out.resolve("reports/skip.txt"), "no");
        Published published = files.publish(workspace, List.of(
                new Upload("tes/fs/out/result.txt", "s3://refs/out/result.txt", null, "/out/result.txt"),
                new Upload("tes/fs/out/reports/**.html", "s3://refs/out/html/", "tes/fs/out/reports", "/out/reports/**.html"),
                new Upload("tes/fs/out/reports", "file://" + shared.resolve("copy"), null, "/out/reports")));
        assertNull(published.failure(), () -> published.failure().reason());
        assertEquals("42", download("out/result.txt"));
        assertEquals("a", download("out/html/a.html"));
        assertEquals("bb", download("out/html/deep/b.html"));
        assertEquals("no", Files.readString(shared.resolve("copy/skip.txt")), "a directory goes whole");
        assertTrue(published.outputs().contains("s3://refs/out/result.txt <- /out/result.txt (2 bytes)"), published.outputs().toString());
        assertTrue(published.outputs().contains("s3://refs/out/html/deep/b.html <- /out/reports/deep/b.html (2 bytes)"),
                published.outputs().toString());
        Published missing = files.publish(workspace, List.of(new Upload("tes/fs/none.txt", "s3://refs/none", null, "/none.txt")));
        assertEquals(FailureClass.USER, missing.failure().failureClass());
        assertEquals("exited 0 but left no /none.txt to upload to s3://refs/none", missing.failure().reason());
        Published noBucket = files.publish(workspace, List.of(new Upload("tes/fs/out/result.txt", "s3://no-such-bucket/x", null, null)));
        assertEquals(FailureClass.USER, noBucket.failure().failureClass(), "a bucket that does not exist is the task's mistake");
        Published outside = files.publish(workspace, List.of(new Upload("tes/fs/out/result.txt", "file:///etc/flash-x", null, null)));
        assertEquals(FailureClass.USER, outside.failure().failureClass());
    }

    private String download(String key) throws Exception {
        Path to = Files.createTempFile("dl", "");
        store.download(new ObjectLocation("refs", key), to);
        return Files.readString(to);
    }
}
