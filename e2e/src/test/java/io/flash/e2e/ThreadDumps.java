package io.flash.e2e;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The part of a JVM thread dump (SIGQUIT, written to the service's log) a reader of a CI log needs
 * when a stack stalls: the processing threads — Streams, the messaging consumer and producer, the
 * worker pool — each with its state and top frames.
 */
final class ThreadDumps {

    private static final Pattern WANTED = Pattern.compile("StreamThread-\\d+\"|GlobalStreamThread\"|StateUpdater|flash-registry-call|smallrye-kafka-(consumer|producer)-thread|executor-thread");
    private static final int FRAMES = 10;

    private ThreadDumps() {
    }

    /** The processing threads of the last dump in {@code log}, or a line saying there is none. */
    static String summary(String service, String log) {
        int at = log.lastIndexOf("Full thread dump");
        if (at < 0) return service + ": no thread dump in its log\n";
        StringBuilder out = new StringBuilder(service).append(" threads:\n");
        String[] lines = log.substring(at).split("\n");
        List<String> thread = new ArrayList<>();
        for (String line : lines) {
            if (line.startsWith("\"")) {
                flush(thread, out);
                thread.clear();
            }
            if (!line.isBlank()) thread.add(line);
        }
        flush(thread, out);
        return out.toString();
    }

    private static void flush(List<String> thread, StringBuilder out) {
        if (thread.isEmpty() || !WANTED.matcher(thread.get(0)).find()) return;
        if (thread.stream().limit(8).anyMatch(l -> l.contains("EnhancedQueueExecutor.runThreadBody"))) return; // an idle worker
        out.append("  ").append(thread.get(0), 0, Math.min(thread.get(0).length(), 120)).append('\n');
        if (thread.size() > 2 && thread.get(2).contains("EPoll.wait")) {
            out.append("    (in a network poll: not stuck in Flash's code)\n");
            return;
        }
        thread.stream().skip(1).filter(l -> !l.contains("- locked") && !l.contains("- parking")).limit(FRAMES)
                .forEach(l -> out.append("    ").append(l.strip()).append('\n'));
    }
}
