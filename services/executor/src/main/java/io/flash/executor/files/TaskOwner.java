package io.flash.executor.files;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The identity every task container runs as, and what the executor gives it: what Flash places for
 * a task (its workspace, inputs, logs) belongs to that uid with no access for anyone else, so no
 * other local account reads or plants anything there. An executor that is not root cannot give
 * files away; it falls back to opening them to everyone, as the container must still write them
 * (docs/security.md says so).
 */
public record TaskOwner(int uid, int gid, boolean canGive) {

    /** @param user {@code uid:gid}, as the engine is told to run containers */
    public static TaskOwner of(String user) {
        String[] ids = user.split(":");
        return new TaskOwner(Integer.parseInt(ids[0]), Integer.parseInt(ids[1]), processUid() == 0);
    }

    /** Hands a file or directory Flash made to the task's user (never following a link). */
    void give(Path path) throws IOException {
        boolean directory = Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS);
        if (!canGive) {
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(directory ? "rwxrwxrwx" : "rw-rw-rw-"));
            return;
        }
        Files.setAttribute(path, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(path, "unix:gid", gid, LinkOption.NOFOLLOW_LINKS);
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(directory ? "rwx------" : "rw-------"));
    }

    private static int processUid() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException | UnsupportedOperationException e) {
            return -1;
        }
    }
}
