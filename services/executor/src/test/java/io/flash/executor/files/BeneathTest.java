package io.flash.executor.files;

import io.flash.executor.engine.ContainerRuntime;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.*;

/** The executor's way into a task's directories on the real file system: no link a task made is followed. */
class BeneathTest {

    @TempDir
    Path dir;
    private Path workspace, host;
    private Beneath beneath;

    @BeforeEach
    void setUp() throws Exception {
        workspace = Files.createDirectories(dir.resolve("work/jobs/job-1"));
        host = Files.createDirectories(dir.resolve("host"));
        Files.writeString(host.resolve("secret"), "root only");
        beneath = new Beneath(workspace, new Scratch(dir.resolve("work"), "n1", TaskOwner.of(ContainerRuntime.TASK_USER)));
    }

    /**
     * A file's time comes from the kernel's coarse clock, a tick behind the one the JVM reads: a file
     * written right after the reading may carry an earlier time. Repeated, as the lag shows in some
     * writes only (it failed a CI run once in a hundred-odd).
     */
    @Test
    void aFileWrittenRightAfterTheReadingIsAlwaysFound() throws Exception {
        for (int i = 0; i < 500; i++) {
            String name = "f" + i;
            long since = System.currentTimeMillis();
            Files.writeString(workspace.resolve(name), "x");
            assertTrue(beneath.modifiedSince(since, path -> !path.equals(name), 10, 10_000).paths().contains(name),
                    "round " + i + ": written after " + since);
        }
    }

    @Test
    void aFileIsPlacedWithItsDirectoriesAndBelongsToTheTasksUser() throws Exception {
        beneath.write("a/b/c.txt", "hello".getBytes(StandardCharsets.UTF_8));
        assertEquals("hello", Files.readString(workspace.resolve("a/b/c.txt")));
        assertEquals(Beneath.Kind.FILE, beneath.kind("a/b/c.txt"));
        assertEquals(Beneath.Kind.DIRECTORY, beneath.kind("a/b"));
        TaskOwner owner = TaskOwner.of(ContainerRuntime.TASK_USER);
        if (owner.canGive()) {
            for (Path p : List.of(workspace.resolve("a"), workspace.resolve("a/b"), workspace.resolve("a/b/c.txt"))) {
                assertEquals(65534, Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS), p.toString());
                assertFalse(Files.getPosixFilePermissions(p).toString().contains("OTHERS"), p + " is open to others");
            }
        }
    }

    @Test
    void aLinkAtAnyComponentIsRefusedAndTheHostFileIsUntouched() throws Exception {
        Files.createSymbolicLink(workspace.resolve("out"), host);
        Files.createDirectories(workspace.resolve("d"));
        Files.createSymbolicLink(workspace.resolve("d/leak"), host.resolve("secret"));
        assertThrows(Beneath.Refused.class, () -> beneath.write("out/secret", "payload".getBytes()));
        assertThrows(Beneath.Refused.class, () -> beneath.kind("out/secret"));
        assertThrows(Beneath.Refused.class, () -> beneath.read("d/leak"));
        assertThrows(Beneath.Refused.class, () -> beneath.files("d"));
        assertThrows(Beneath.Refused.class, () -> beneath.directories("out/x"));
        assertThrows(Beneath.Refused.class, () -> beneath.create("out/log"));
        assertEquals(Beneath.Kind.LINK, beneath.kind("d/leak"));
        Beneath.Refused refused = assertThrows(Beneath.Refused.class, () -> beneath.read("d/leak"));
        assertTrue(refused.getMessage().contains("d/leak is a symbolic link"), refused.getMessage());
        assertEquals("root only", Files.readString(host.resolve("secret")));
        assertEquals(List.of("secret"), Files.list(host).map(p -> p.getFileName().toString()).toList());
    }

    @Test
    void placingOverALinkReplacesTheLinkAndNeverWritesThroughIt() throws Exception {
        Files.createSymbolicLink(workspace.resolve("stdout.txt"), host.resolve("secret"));
        beneath.write("stdout.txt", "mine".getBytes());
        assertFalse(Files.isSymbolicLink(workspace.resolve("stdout.txt")));
        assertEquals("mine", Files.readString(workspace.resolve("stdout.txt")));
        assertEquals("root only", Files.readString(host.resolve("secret")));
    }

    @Test
    void filesWalksATreeAndALogKeepsBeingWrittenAfterItIsPlaced() throws Exception {
        beneath.write("out/x/1.txt", "1".getBytes());
        beneath.write("out/2.txt", "22".getBytes());
        assertEquals(List.of("out/2.txt", "out/x/1.txt"), beneath.files("out").stream().map(Beneath.Entry::path).toList());
        assertEquals(2, beneath.files("out/2.txt").get(0).size());
        try (OutputStream log = beneath.create(".flash/logs/a1.log")) {
            log.write("line\n".getBytes());
        }
        assertEquals("line\n", Files.readString(workspace.resolve(".flash/logs/a1.log")));
        try (InputStream in = beneath.read("out/2.txt")) {
            assertEquals("22", new String(in.readAllBytes()));
        }
        assertThrows(Beneath.Refused.class, () -> beneath.kind("../host/secret"));
    }
    /**
     * Attempts of one job starting together on a node each make the job's .flash/logs. A rename onto
     * an empty directory replaces it, so a directory one worker had just made and opened could be
     * swapped for another's: the first then looked forever for the next directory inside a deleted
     * one (seen in CI as an attempt whose worker never ended, spinning in makeDirectory). Repeated
     * 300 times with six workers; every file lands and no worker is left behind.
     */
    @Test
    void workersMakingTheSameDirectoriesTogetherEachPlaceTheirFile() throws Exception {
        int workers = 6;
        ExecutorService pool = Executors.newFixedThreadPool(workers);
        try {
            for (int round = 0; round < 300; round++) {
                Path root = Files.createDirectories(dir.resolve("work/jobs/race-" + round));
                Beneath job = new Beneath(root, new Scratch(dir.resolve("work"), "n1", TaskOwner.of(ContainerRuntime.TASK_USER)));
                CountDownLatch go = new CountDownLatch(1);
                List<Future<?>> placed = new ArrayList<>();
                for (int w = 0; w < workers; w++) {
                    String log = ".flash/logs/a" + w + ".log";
                    placed.add(pool.submit(() -> {
                        go.await();
                        try (OutputStream out = job.create(log)) {
                            out.write(log.getBytes(StandardCharsets.UTF_8));
                        }
                        return null;
                    }));
                }
                go.countDown();
                for (Future<?> f : placed) f.get(10, TimeUnit.SECONDS);
                for (int w = 0; w < workers; w++) {
                    assertEquals(".flash/logs/a" + w + ".log", Files.readString(root.resolve(".flash/logs/a" + w + ".log")), "round " + round);
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
