package io.flash.executor.attempt;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Containers of this node that were killed from outside Flash (the engine's kill events that Flash
 * did not cause): such an exit is the infrastructure's doing, not the program's, and is retried
 * without spending the task's attempts. A program that kills itself makes no kill event.
 */
public final class OutsideKills {

    private record Kill(String signal, long at) {
    }

    private final Map<String, Kill> byContainer = new ConcurrentHashMap<>();

    public void record(String containerId, String signal) {
        long now = System.currentTimeMillis();
        byContainer.put(containerId, new Kill(signal, now));
        if (byContainer.size() > 1000) byContainer.values().removeIf(k -> now - k.at() > 600_000);
    }

    /**
     * The signal the container was killed with from outside, or null. The event can trail the
     * exit by a moment, so an exit by SIGKILL or SIGTERM (137, 143) waits up to {@code wait} for it.
     */
    String take(String containerId, int exitCode, Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + (exitCode == 137 || exitCode == 143 ? wait.toNanos() : 0);
        Kill kill;
        while ((kill = byContainer.remove(containerId)) == null && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        return kill == null ? null : kill.signal();
    }
}
