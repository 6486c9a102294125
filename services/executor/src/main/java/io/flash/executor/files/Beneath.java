package io.flash.executor.files;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * A directory a task can write — its job workspace or its attempt directory — reached as the
 * executor, which runs as root, must reach it: never through a link the task could have made.
 * Every component is opened relative to its parent's descriptor with O_NOFOLLOW (openat, through
 * the JDK's {@link SecureDirectoryStream}); what Flash writes is made in its {@link Scratch} and
 * renamed into place (renameat replaces a link, it never writes through one); what it reads is
 * opened with O_NOFOLLOW. A link where Flash must read, write or bind is refused as the task's own
 * doing. Why this rule and not a helper container: docs/security.md.
 */
public final class Beneath {

    /** A path that leads through a link, or is not the kind of file it must be: the task's own doing. */
    public static final class Refused extends IOException {
        Refused(String message) {
            super(message);
        }
    }

    enum Kind { ABSENT, FILE, DIRECTORY, LINK, OTHER }

    /** An entry of a directory, as it is (a link is a link). */
    public record Entry(String path, Kind kind, long size) {
    }

    private static final int LOOKS = 4;

    /** Held while this process makes a directory in a task tree (see makeDirectory). */
    private static final Object MAKING = new Object();

    private final Path root;
    private final Scratch scratch;

    public Beneath(Path root, Scratch scratch) {
        this.root = root.toAbsolutePath().normalize();
        this.scratch = scratch;
    }

    public Scratch scratch() {
        return scratch;
    }

    /** What is at {@code relative}; a link on the way there is refused. */
    Kind kind(String relative) throws IOException {
        List<String> names = names(relative);
        if (names.isEmpty()) return Kind.DIRECTORY;
        try (SecureDirectoryStream<Path> parent = open(names.subList(0, names.size() - 1), false)) {
            return kindOf(parent, last(names));
        } catch (NoSuchFileException e) {
            return Kind.ABSENT;
        }
    }

    /** Makes the directory {@code relative} and the ones above it that are missing, for the task's user. */
    public void directories(String relative) throws IOException {
        open(names(relative), true).close();
    }

    /**
     * Moves a file or tree made in the scratch directory to {@code relative}, making the
     * directories above it; an entry already there is replaced (a link too: it is not followed).
     */
    public void place(Path made, String relative) throws IOException {
        List<String> names = names(relative);
        if (names.isEmpty()) throw new Refused("nothing to place at the root of " + root);
        scratch.giveAll(made);
        try (SecureDirectoryStream<Path> parent = open(names.subList(0, names.size() - 1), true);
             SecureDirectoryStream<Path> from = scratch.open()) {
            from.move(made.getFileName(), parent, Path.of(last(names)));
        } catch (IOException e) {
            scratch.discard(made);
            if (e instanceof FileSystemException f && !(e instanceof NoSuchFileException)) {
                throw new Refused(shown(relative) + " cannot be replaced (" + reasonOf(f) + ")");
            }
            throw e;
        }
    }

    /** Writes {@code bytes} to a new file at {@code relative}, through the scratch directory. */
    public void write(String relative, byte[] bytes) throws IOException {
        Path made = scratch.file();
        Files.write(made, bytes);
        place(made, relative);
    }

    /**
     * A new file at {@code relative}, open for writing, that keeps being written after it is in
     * place (an attempt's log): made in the scratch directory, opened there, then moved.
     */
    OutputStream create(String relative) throws IOException {
        Path made = scratch.file();
        scratch.giveAll(made);
        OutputStream out = Files.newOutputStream(made, StandardOpenOption.WRITE);
        try {
            place(made, relative);
            return out;
        } catch (IOException e) {
            out.close();
            throw e;
        }
    }

    /**
     * Copies the file or tree at {@code relative} to the same place under {@code target}, each file
     * through the scratch directory (a link on either side is refused, never followed).
     *
     * @return false when nothing is there
     */
    public boolean copyTo(Beneath target, String relative) throws IOException {
        if (kind(relative) == Kind.ABSENT) return false;
        for (Entry file : files(relative)) {
            Path made = target.scratch.file();
            try (InputStream in = read(file.path())) {
                Files.copy(in, made, StandardCopyOption.REPLACE_EXISTING);
            }
            target.place(made, file.path());
        }
        return true;
    }

    /** Opens the regular file at {@code relative} for reading; a link or anything else is refused. */
    InputStream read(String relative) throws IOException {
        List<String> names = names(relative);
        try (SecureDirectoryStream<Path> parent = open(names.subList(0, names.size() - 1), false)) {
            Kind kind = kindOf(parent, last(names));
            if (kind == Kind.ABSENT) throw new NoSuchFileException(shown(relative));
            if (kind != Kind.FILE) throw refusal(relative, kind, "a regular file");
            SeekableByteChannel channel = parent.newByteChannel(Path.of(last(names)),
                    Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS));
            return Channels.newInputStream(channel);
        }
    }

    /**
     * The regular files at or under {@code relative} (paths relative to the root, sorted); a link
     * or special file anywhere on the way is refused, nothing is followed.
     */
    List<Entry> files(String relative) throws IOException {
        List<String> names = names(relative);
        List<Entry> found = new ArrayList<>();
        if (names.isEmpty()) {
            try (SecureDirectoryStream<Path> dir = open(names, false)) {
                walk(dir, "", found);
            }
            found.sort((a, b) -> a.path().compareTo(b.path()));
            return found;
        }
        try (SecureDirectoryStream<Path> parent = open(names.subList(0, names.size() - 1), false)) {
            String name = last(names);
            BasicFileAttributes attributes = attributes(parent, name);
            Kind kind = kindOf(attributes);
            if (kind == Kind.FILE) return List.of(new Entry(String.join("/", names), kind, attributes.size()));
            if (kind != Kind.DIRECTORY) throw refusal(relative, kind, "a file or directory");
            try (SecureDirectoryStream<Path> dir = parent.newDirectoryStream(Path.of(name), LinkOption.NOFOLLOW_LINKS)) {
                walk(dir, String.join("/", names) + "/", found);
            }
        }
        found.sort((a, b) -> a.path().compareTo(b.path()));
        return found;
    }

    /** The entries directly in the directory {@code relative}, each as it is (a link is not followed). */
    public List<Entry> list(String relative) throws IOException {
        List<Entry> entries = new ArrayList<>();
        try (SecureDirectoryStream<Path> dir = open(names(relative), false)) {
            for (String name : namesIn(dir)) {
                try {
                    BasicFileAttributes a = attributes(dir, name);
                    entries.add(new Entry(name, kindOf(a), a.size()));
                } catch (NoSuchFileException gone) {
                    // consumed meanwhile
                }
            }
        }
        return entries;
    }

    /**
     * What {@link #modifiedSince} found.
     *
     * @param paths          in name order
     * @param lookedThrough  false when the tree had more entries than it was to look at: more may have been written
     */
    public record Modified(List<String> paths, boolean lookedThrough) {
    }

    /**
     * How far a file's time may lag the clock read before it was written: Linux stamps files from
     * its coarse clock, up to a tick (1–10 ms) behind the one the JVM reads, so a file written just
     * after the reading can carry an earlier time. Taken with margin; what was written in it before
     * the reading is counted too, the safe side for every caller (a unit not indexed that could
     * have been, never the other way round).
     */
    static final long FILE_CLOCK_LAG_MILLIS = 50;

    /**
     * Paths below the root, other than directories, last modified at or after {@code sinceMillis}
     * (less {@link #FILE_CLOCK_LAG_MILLIS}) and not {@code skipped}, in name order, at most {@code
     * max}: what was written meanwhile. A tree of more than {@code maxLooked} entries is not looked
     * through to its end, and the answer says so.
     */
    public Modified modifiedSince(long sinceMillis, Predicate<String> skipped, int max, int maxLooked) throws IOException {
        List<String> found = new ArrayList<>();
        int[] looked = {0};
        try (SecureDirectoryStream<Path> dir = open(List.of(), false)) {
            boolean lookedThrough = modified(dir, "", sinceMillis - FILE_CLOCK_LAG_MILLIS, skipped, max, maxLooked, looked, found);
            return new Modified(List.copyOf(found), lookedThrough);
        }
    }

    /** @return false when it stopped at {@code maxLooked} entries */
    private boolean modified(SecureDirectoryStream<Path> dir, String prefix, long since, Predicate<String> skipped, int max,
                             int maxLooked, int[] looked, List<String> found) throws IOException {
        for (String name : namesIn(dir)) {
            if (found.size() >= max) return true;
            if (++looked[0] > maxLooked) return false;
            String path = prefix + name;
            if (skipped.test(path)) continue;
            BasicFileAttributes a;
            try {
                a = attributes(dir, name);
            } catch (NoSuchFileException gone) {
                continue;
            }
            if (kindOf(a) != Kind.DIRECTORY) {
                if (a.lastModifiedTime().toMillis() >= since) found.add(path);
                continue;
            }
            try (SecureDirectoryStream<Path> sub = dir.newDirectoryStream(Path.of(name), LinkOption.NOFOLLOW_LINKS)) {
                if (!modified(sub, path + "/", since, skipped, max, maxLooked, looked, found)) return false;
            } catch (FileSystemException gone) {
                // removed or replaced meanwhile: what was there is not this unit's to account for
            }
        }
        return true;
    }

    private void walk(SecureDirectoryStream<Path> dir, String prefix, List<Entry> found) throws IOException {
        for (String name : namesIn(dir)) {
            BasicFileAttributes a = attributes(dir, name);
            Kind kind = kindOf(a);
            if (kind == Kind.FILE) {
                found.add(new Entry(prefix + name, kind, a.size()));
            } else if (kind == Kind.DIRECTORY) {
                try (SecureDirectoryStream<Path> sub = dir.newDirectoryStream(Path.of(name), LinkOption.NOFOLLOW_LINKS)) {
                    walk(sub, prefix + name + "/", found);
                }
            } else {
                throw refusal(prefix + name, kind, "a file or directory");
            }
        }
    }

    private static List<String> namesIn(SecureDirectoryStream<Path> dir) {
        List<String> names = new ArrayList<>();
        for (Path p : dir) names.add(p.getFileName().toString());
        names.sort(null);
        return names;
    }

    /** The directory {@code names} below the root, each step opened without following a link. */
    private SecureDirectoryStream<Path> open(List<String> names, boolean create) throws IOException {
        SecureDirectoryStream<Path> dir = secure(Files.newDirectoryStream(root));
        try {
            for (int i = 0; i < names.size(); i++) {
                SecureDirectoryStream<Path> next = child(dir, names.get(i), create, String.join("/", names.subList(0, i + 1)));
                dir.close();
                dir = next;
            }
            return dir;
        } catch (IOException | RuntimeException e) {
            dir.close();
            throw e;
        }
    }

    private SecureDirectoryStream<Path> child(SecureDirectoryStream<Path> dir, String name, boolean create, String shown)
            throws IOException {
        for (int look = 1; ; look++) {
            if (look > LOOKS) throw new Refused(shown(shown) + " keeps changing while Flash opens it");
            Kind kind = kindOf(dir, name);
            if (kind == Kind.ABSENT) {
                if (!create) throw new NoSuchFileException(shown(shown));
                makeDirectory(dir, name);
                continue;
            }
            if (kind != Kind.DIRECTORY) throw refusal(shown, kind, "a directory");
            try {
                return dir.newDirectoryStream(Path.of(name), LinkOption.NOFOLLOW_LINKS);
            } catch (FileSystemException changedMeanwhile) {
                // look again at what is there now
            }
        }
    }

    /**
     * A directory made in the scratch directory and renamed in: it is the task's from its first
     * moment. A rename replaces an empty directory at its target, so two workers making the same
     * directory would swap one's fresh (and already opened) directory for the other's, leaving the
     * first inside a deleted one: this process makes directories one at a time, looking again under
     * the lock. Anything but "made meanwhile" is an error of its own, not a reason to look again.
     */
    private void makeDirectory(SecureDirectoryStream<Path> into, String name) throws IOException {
        Path made = scratch.directory();
        scratch.giveAll(made);
        boolean moved = false;
        try (SecureDirectoryStream<Path> from = scratch.open()) {
            synchronized (MAKING) {
                if (kindOf(into, name) == Kind.ABSENT) {
                    from.move(made.getFileName(), into, Path.of(name));
                    moved = true;
                }
            }
        } catch (FileAlreadyExistsException | DirectoryNotEmptyException madeMeanwhile) {
            // the caller looks again at what is there now
        } finally {
            if (!moved) scratch.discard(made);
        }
    }

    private static BasicFileAttributes attributes(SecureDirectoryStream<Path> dir, String name) throws IOException {
        return dir.getFileAttributeView(Path.of(name), BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS).readAttributes();
    }

    private static Kind kindOf(SecureDirectoryStream<Path> dir, String name) throws IOException {
        try {
            return kindOf(attributes(dir, name));
        } catch (NoSuchFileException e) {
            return Kind.ABSENT;
        }
    }

    private static Kind kindOf(BasicFileAttributes a) {
        if (a.isSymbolicLink()) return Kind.LINK;
        if (a.isDirectory()) return Kind.DIRECTORY;
        return a.isRegularFile() ? Kind.FILE : Kind.OTHER;
    }

    private static SecureDirectoryStream<Path> secure(DirectoryStream<Path> stream) throws IOException {
        if (stream instanceof SecureDirectoryStream<Path> s) return s;
        stream.close();
        throw new IOException("this file system cannot open directories relative to a descriptor (openat)");
    }

    private static Refused refusal(String relative, Kind kind, String expected) {
        String what = kind == Kind.LINK ? "a symbolic link (Flash follows no link a task made)"
                : kind == Kind.DIRECTORY ? "a directory" : kind == Kind.FILE ? "a file" : "a special file";
        return new Refused(shown(relative) + " is " + what + ", not " + expected);
    }

    /** The path as the task sees it in its workspace. */
    private static String shown(String relative) {
        return relative.startsWith("tes/fs/") ? relative.substring("tes/fs".length()) : relative;
    }

    private static String reasonOf(FileSystemException e) {
        return e.getReason() != null ? e.getReason() : e.getClass().getSimpleName();
    }

    private static String last(List<String> names) {
        return names.get(names.size() - 1);
    }

    /** The components of a relative path; one that leaves the root is refused. */
    private static List<String> names(String relative) throws Refused {
        List<String> names = new ArrayList<>();
        for (String name : relative.split("/")) {
            if (name.isEmpty() || name.equals(".")) continue;
            if (name.equals("..")) throw new Refused(relative + " leads out of the workspace");
            names.add(name);
        }
        return names;
    }
}
