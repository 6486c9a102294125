package io.flash.executor.attempt;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.jboss.logging.Logger;

/**
 * Containers whose attempt has ended but which the engine could not stop or remove (a fork bomb's
 * shim holding hundreds of processes, an engine that lost an exit event). While any is left the
 * node is unhealthy: it heartbeats no free capacity, so nothing more is placed on it, and says why.
 * Each sweep asks the engine again to remove them; a container gone is forgotten.
 */
public final class StuckContainers {

    private static final Logger LOG = Logger.getLogger(StuckContainers.class);

    private record Stuck(String attemptId, String why, Instant since) {
    }

    private final Map<String, Stuck> byContainer = new ConcurrentHashMap<>();

    void add(String containerId, String attemptId, String why) {
        if (byContainer.putIfAbsent(containerId, new Stuck(attemptId, why, Instant.now())) == null) {
            LOG.errorf("container %s of attempt %s cannot be stopped or removed (%s): this node takes no work until it is gone",
                    containerId, attemptId, why);
        }
    }

    /** @param remove throws while the engine still cannot remove the container */
    public void sweep(Consumer<String> remove) {
        for (var e : byContainer.entrySet()) {
            try {
                remove.accept(e.getKey());
                byContainer.remove(e.getKey());
                LOG.infof("container %s of attempt %s is gone after %s; the node takes work again", e.getKey(),
                        e.getValue().attemptId(), Duration.between(e.getValue().since(), Instant.now()));
            } catch (RuntimeException stillThere) {
                // asked again on the next sweep
            }
        }
    }

    public int size() {
        return byContainer.size();
    }

    /** Why the node takes no work, or null when it is healthy. */
    public String unhealthyReason() {
        if (byContainer.isEmpty()) return null;
        var first = byContainer.entrySet().iterator().next();
        return byContainer.size() + " container(s) the engine cannot stop or remove, e.g. " + first.getKey()
                + " of attempt " + first.getValue().attemptId() + " since " + first.getValue().since() + ": " + first.getValue().why();
    }
}
