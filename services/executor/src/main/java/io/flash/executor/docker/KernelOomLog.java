package io.flash.executor.docker;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jboss.logging.Logger;

/**
 * Which containers the kernel itself OOM-killed, from its own record of each kill: the
 * {@code oom-kill:...,task_memcg=/docker/<id>,...} line it writes before the victim dies.
 *
 * <p>The engine's {@code OOMKilled} flag is not certain: it comes from an event the engine handles
 * after, and independently of, the exit, so under load a wait can answer with the flag still
 * false (issue 29: of two tasks killed at once, one was billed to its user). The memory cgroup's own
 * {@code oom_kill} count is certain but vanishes with the container's cgroup (cgroup v1 does not
 * count it in a parent). The kernel's record outlives both: a reader follows {@code /dev/kmsg} from
 * the executor's start, so a burst of kills cannot rotate a record out unread, and a question the
 * reader cannot answer yet is answered by {@code dmesg}, which reads the buffer up to this instant.
 * Where the log cannot be read (not root, an executor in a container), {@link #available()} is false
 * and the engine's flag decides alone. The kernel rate-limits this line (10 per 5 s per machine):
 * beyond that burst the engine's flag is all there is, as before (bench/run-oom-class.sh).
 */
public final class KernelOomLog implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(KernelOomLog.class);
    private static final Pattern KILL = Pattern.compile("oom-kill:.*?task_memcg=([^,\\s]+)");
    private static final Pattern CONTAINER = Pattern.compile("([0-9a-f]{64})");
    private static final int REMEMBERED = 10_000;

    private final Set<String> killed = Collections.synchronizedSet(Collections.newSetFromMap(new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > REMEMBERED;
        }
    }));
    private final InputStream kmsg;
    private final Thread reader;

    private KernelOomLog(InputStream kmsg) {
        this.kmsg = kmsg;
        this.reader = kmsg == null ? null : new Thread(this::follow, "kernel-oom-log");
        if (reader != null) {
            reader.setDaemon(true);
            reader.start();
        }
    }

    /** Follows the kernel's log at {@code kmsg}; a log it cannot read gives an instance that knows nothing. */
    public static KernelOomLog open(Path kmsg) {
        try {
            InputStream in = Files.newInputStream(kmsg);
            LOG.infof("OOM kills are read from the kernel's own record (%s), not only the engine's flag", kmsg);
            return new KernelOomLog(in);
        } catch (IOException | SecurityException e) {
            LOG.warnf("the kernel's log %s cannot be read here (%s): an OOM kill is known only by the engine's flag, which can "
                    + "miss a kill under load; run the executor as root on the node to read it", kmsg, e.getMessage());
            return new KernelOomLog(null);
        }
    }

    /** For an engine on another host, whose kernel this one is not. */
    public static KernelOomLog none() {
        return new KernelOomLog(null);
    }

    public boolean available() {
        return kmsg != null;
    }

    /** Whether the kernel recorded an OOM kill in this container's memory cgroup (full 64-hex id). */
    public boolean killedIn(String containerId) {
        if (kmsg == null) return false;
        if (killed.contains(containerId)) return true;
        readNow();
        return killed.contains(containerId);
    }

    /** One record of the kernel log, or a line of dmesg: notes the container an OOM kill names. */
    void note(String record) {
        Matcher kill = KILL.matcher(record);
        if (!kill.find()) return;
        Matcher id = CONTAINER.matcher(kill.group(1));
        String last = null;
        while (id.find()) last = id.group(1);
        if (last != null) killed.add(last);
    }

    private void follow() {
        byte[] record = new byte[8192]; // one read of /dev/kmsg returns exactly one record
        while (!Thread.currentThread().isInterrupted()) {
            try {
                int n = kmsg.read(record);
                if (n < 0) return;
                note(new String(record, 0, n, StandardCharsets.UTF_8));
            } catch (IOException e) {
                // EPIPE: records were overwritten before this read; the next read goes on from the oldest kept.
                // Anything else ends the following: what dmesg reads at each question still answers.
                if (e.getMessage() == null || !e.getMessage().contains("Broken pipe")) {
                    LOG.debugf("stopped following the kernel's log: %s", e.getMessage());
                    return;
                }
            }
        }
    }

    /** dmesg reads the kernel's buffer to its end without waiting: whatever was written before now is seen. */
    private void readNow() {
        try {
            Process dmesg = new ProcessBuilder("dmesg", "--raw").redirectErrorStream(true).start();
            try (var lines = dmesg.inputReader(StandardCharsets.UTF_8)) {
                lines.lines().forEach(this::note);
            }
            if (!dmesg.waitFor(10, TimeUnit.SECONDS)) dmesg.destroyForcibly();
        } catch (IOException e) {
            // no dmesg here: what the reader has followed is all that is known
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        if (reader != null) reader.interrupt();
        try {
            if (kmsg != null) kmsg.close();
        } catch (IOException e) {
            // closing a read-only log loses nothing
        }
    }
}
