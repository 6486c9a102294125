package io.flash.executor.agent;

import io.flash.executor.engine.ContainerRuntime;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * The safety net under every wait on the engine: an attempt whose container has stopped but whose
 * worker has not ended it within {@code patience} is stuck in a call the engine never answered (in
 * CI one attempt stayed RUNNING for minutes after its container had exited 0). The worker's stack
 * is logged — where it waits — and the worker interrupted, so the attempt is reported broken
 * (INFRASTRUCTURE, retried) instead of holding its resources and its job for ever.
 */
final class StuckAttempts {

    private static final Logger LOG = Logger.getLogger(StuckAttempts.class);

    private final long patienceMillis;
    private final Map<String, Thread> workers = new ConcurrentHashMap<>();
    private final Map<String, Long> stoppedSince = new ConcurrentHashMap<>();

    StuckAttempts(Duration patience) {
        this.patienceMillis = patience.toMillis();
    }

    void begin(String attemptId, Thread worker) {
        workers.put(attemptId, worker);
    }

    void end(String attemptId) {
        workers.remove(attemptId);
        stoppedSince.remove(attemptId);
    }

    /** One look at the node's containers; @return the attempts whose workers were interrupted */
    Set<String> look(List<ContainerRuntime.ContainerInfo> containers, long now) {
        Set<String> stopped = new HashSet<>();
        for (ContainerRuntime.ContainerInfo c : containers) {
            if (c.attemptId() != null && !c.running() && !c.created() && workers.containsKey(c.attemptId())) stopped.add(c.attemptId());
        }
        stoppedSince.keySet().retainAll(stopped);
        Set<String> interrupted = new HashSet<>();
        for (String attemptId : stopped) {
            long since = stoppedSince.computeIfAbsent(attemptId, id -> now);
            Thread worker = workers.get(attemptId);
            if (worker == null || now - since < patienceMillis) continue;
            StringBuilder stack = new StringBuilder();
            for (StackTraceElement frame : worker.getStackTrace()) stack.append("\n\tat ").append(frame);
            LOG.errorf("attempt %s: its container stopped %d s ago and its worker has not ended it; interrupting it. It waits in:%s",
                    attemptId, (now - since) / 1000, stack);
            stoppedSince.put(attemptId, now); // again only after another period
            worker.interrupt();
            interrupted.add(attemptId);
        }
        return interrupted;
    }
}
