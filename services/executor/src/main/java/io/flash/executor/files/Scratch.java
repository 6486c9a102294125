package io.flash.executor.files;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.UUID;

/**
 * The executor's private directory on the node's work volume ({@code <work root>/.flash-private/<node>},
 * root only; one per node, as several nodes may share a work root): where everything Flash writes for a task is made before it is renamed into the task's
 * directories. No container mounts it and no task can reach it, so nothing there can be a link a
 * task planted; being on the same volume as the workspaces, a rename from it is atomic.
 */
public final class Scratch {

    private final Path dir;
    private final TaskOwner owner;

    public Scratch(Path workRoot, String nodeId, TaskOwner owner) throws IOException {
        this.owner = owner;
        Path all = workRoot.toAbsolutePath().normalize().resolve(".flash-private");
        this.dir = all.resolve(nodeId);
        Files.createDirectories(dir);
        Files.setPosixFilePermissions(all, PosixFilePermissions.fromString("rwx------"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        try (var left = Files.list(dir)) { // what a stopped executor was making
            left.forEach(this::discard);
        }
    }

    /** A new empty file, not yet given to the task's user. */
    public Path file() throws IOException {
        return Files.createFile(dir.resolve(UUID.randomUUID().toString()));
    }

    /** A new empty directory, not yet given to the task's user. */
    Path directory() throws IOException {
        return Files.createDirectory(dir.resolve(UUID.randomUUID().toString()));
    }

    /** Gives a tree made here to the task's user: every file and directory in it. */
    void giveAll(Path made) throws IOException {
        if (!Files.isDirectory(made)) {
            owner.give(made);
            return;
        }
        try (var walk = Files.walk(made)) {
            for (Path p : (Iterable<Path>) walk::iterator) owner.give(p);
        }
    }

    TaskOwner owner() {
        return owner;
    }

    /** The directory itself, opened: the source of every rename into a task's directories. */
    SecureDirectoryStream<Path> open() throws IOException {
        DirectoryStream<Path> stream = Files.newDirectoryStream(dir);
        if (stream instanceof SecureDirectoryStream<Path> secure) return secure;
        stream.close();
        throw new IOException("this file system cannot open directories relative to a descriptor (openat); "
                + "the executor needs it to handle a task's files safely");
    }

    /** Removes what is left of a file or tree made here (a failed placement). */
    public void discard(Path made) {
        if (!Files.exists(made, LinkOption.NOFOLLOW_LINKS)) return;
        try (var walk = Files.walk(made)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // the next start clears the scratch directory
        }
    }
}
