package io.flash.executor.files;

import io.flash.common.cache.CacheKeys;
import io.flash.executor.engine.ContainerRuntime;
import io.flash.schema.TaskDefinition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.flash.common.testing.Samples.task;
import static org.junit.jupiter.api.Assertions.*;

/** What a unit the cache may serve wrote without declaring it, in a workspace its job's other units share. */
class UnitKeysTest {

    @TempDir
    Path dir;

    private TaskDefinition servable(String name, String output) {
        TaskDefinition t = task(name);
        t.setOutputs(List.of(output));
        t.setCacheScope("owner/alice");
        return t;
    }

    /** Shards of a scatter run side by side: one that ended during another's run is not taken for the other's writer. */
    @Test
    void whatAnotherUnitOfTheJobDeclaresIsNotCountedEvenWhenItHasEnded() throws Exception {
        Path workspace = Files.createDirectories(dir.resolve("work/jobs/job-1"));
        UnitKeys keys = new UnitKeys(new Scratch(dir.resolve("work"), "n1", TaskOwner.of(ContainerRuntime.TASK_USER)), () -> null);
        long start = System.currentTimeMillis() - 1_000;
        assertEquals(Optional.empty(), keys.key("job-1.s.s0.1", servable("s", "part-0"), workspace, image -> "sha256:1", start));
        keys.key("job-1.s.s1.1", servable("s", "part-1"), workspace, image -> "sha256:1", start);
        keys.key("job-2.t.1", servable("t", "elsewhere"), dir.resolve("work/jobs/job-2"), image -> "sha256:1", start);
        Files.writeString(workspace.resolve("part-1"), "1");
        keys.take("job-1.s.s1.1"); // shard 1 ended first
        Files.writeString(workspace.resolve("part-0"), "0");
        Files.writeString(workspace.resolve("scratch.tmp"), "?");
        Files.writeString(workspace.resolve("old.txt"), "before");
        Files.setLastModifiedTime(workspace.resolve("old.txt"), FileTime.fromMillis(start - 60_000));
        UnitKeys.Keyed shard0 = keys.keyed("job-1.s.s0.1").orElseThrow();
        assertEquals(List.of("scratch.tmp"), keys.undeclaredWrites(shard0));
        keys.take("job-1.s.s0.1");

        keys.key("job-1.s.s0.2", servable("s", "part-0"), workspace, image -> "sha256:1", start);
        assertEquals(List.of("part-1", "scratch.tmp"), keys.undeclaredWrites(keys.keyed("job-1.s.s0.2").orElseThrow()),
                "once none of the job's units was in flight, what they declared is forgotten");
    }

    /** A workspace too large to look through after every success is not taken as checked. */
    @Test
    void aWorkspaceLargerThanTheCheckLooksAtEndsInItsMark() throws Exception {
        Path workspace = Files.createDirectories(dir.resolve("work/jobs/job-3"));
        for (int i = 0; i < 5; i++) Files.writeString(workspace.resolve("f" + i), "x");
        Beneath files = new Beneath(workspace, new Scratch(dir.resolve("work"), "n1", TaskOwner.of(ContainerRuntime.TASK_USER)));
        long before = System.currentTimeMillis() - 60_000;
        Beneath.Modified all = files.modifiedSince(before, path -> false, 10, 5);
        assertEquals(new Beneath.Modified(List.of("f0", "f1", "f2", "f3", "f4"), true), all);
        assertEquals(all.paths(), UnitKeys.reported(all), "looked through: reported as found");
        Beneath.Modified stoppedShort = files.modifiedSince(before, path -> false, 10, 3);
        assertEquals(new Beneath.Modified(List.of("f0", "f1", "f2"), false), stoppedShort);
        assertEquals(List.of("f0", "f1", "f2", CacheKeys.NOT_LOOKED_THROUGH), UnitKeys.reported(stoppedShort),
                "reported with the mark, so the planner never takes it for complete");
    }
}
