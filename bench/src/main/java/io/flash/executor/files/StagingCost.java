package io.flash.executor.files;

import io.flash.executor.engine.ContainerRuntime;
import io.flash.schema.Fetch;
import io.flash.schema.Upload;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * What the executor's file handling costs an attempt: 100 inline inputs staged into a fresh job
 * workspace and 100 outputs collected to {@code file://} under the shared root, through the
 * executor's own mover ({@link TaskFiles}), against a baseline in the same run that writes and
 * copies the same bytes with plain {@code Files} calls and no checks. Lives in the executor's
 * package because the mover is package-private.
 * Usage: StagingCost [rounds] [files] [bytesPerFile]
 */
public final class StagingCost {

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 30;
        int count = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        int size = args.length > 2 ? Integer.parseInt(args[2]) : 4096;
        Path base = Files.createTempDirectory("staging-cost");
        String content = "A".repeat(size);
        double[] flash = new double[rounds], plain = new double[rounds];
        for (int round = -3; round < rounds; round++) { // three rounds of warm-up
            long t0 = System.nanoTime();
            flashRound(base.resolve("f" + round), count, content);
            long t1 = System.nanoTime();
            plainRound(base.resolve("p" + round), count, content);
            long t2 = System.nanoTime();
            if (round >= 0) {
                flash[round] = (t1 - t0) / 1e6;
                plain[round] = (t2 - t1) / 1e6;
            }
            delete(base.resolve("f" + round));
            delete(base.resolve("p" + round));
        }
        Arrays.sort(flash);
        Arrays.sort(plain);
        double f = flash[rounds / 2], p = plain[rounds / 2];
        System.out.printf("| path | per attempt (%d inputs + %d outputs of %d bytes), median of %d | ratio to plain |%n",
                count, count, size, rounds);
        System.out.println("|---|---|---|");
        System.out.printf("| plain Files calls, no checks (baseline) | %.1f ms | 1.00 |%n", p);
        System.out.printf("| the executor's TaskFiles | %.1f ms | %.2f |%n", f, f / p);
        delete(base);
    }

    private static void flashRound(Path dir, int count, String content) throws Exception {
        Path workRoot = dir.resolve("work"), shared = dir.resolve("shared");
        Files.createDirectories(shared);
        Path workspace = Files.createDirectories(workRoot.resolve("jobs").resolve("job-1"));
        TaskFiles files = new TaskFiles(() -> null, () -> null, shared, new Scratch(workRoot, "n1", TaskOwner.of(ContainerRuntime.TASK_USER)),
                AddressRule.of(""));
        List<Fetch> fetches = new ArrayList<>();
        List<Upload> uploads = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            fetches.add(new Fetch(null, content, "tes/fs/in/" + i + ".txt", false));
            uploads.add(new Upload("tes/fs/in/" + i + ".txt", "file://" + shared.resolve("out/" + i + ".txt"), null, "/out/" + i));
        }
        StagingFailure failure = files.stage(workspace, fetches, List.of());
        if (failure != null) throw new IllegalStateException(failure.reason());
        Published published = files.publish(workspace, uploads);
        if (published.failure() != null) throw new IllegalStateException(published.failure().reason());
    }

    private static void plainRound(Path dir, int count, String content) throws Exception {
        Path in = Files.createDirectories(dir.resolve("work/jobs/job-1/tes/fs/in")), out = Files.createDirectories(dir.resolve("shared/out"));
        for (int i = 0; i < count; i++) Files.writeString(in.resolve(i + ".txt"), content);
        for (int i = 0; i < count; i++) Files.copy(in.resolve(i + ".txt"), out.resolve(i + ".txt"));
    }

    private static void delete(Path dir) throws Exception {
        if (!Files.exists(dir)) return;
        try (var walk = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) Files.delete(p);
        }
    }
}
