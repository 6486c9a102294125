package io.flash.batch.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Runs a cluster's command-line tools with a bound: a controller that hangs makes the call fail, not wait. */
final class Commands {

    record Result(int exitCode, String out, String err) {
    }

    private final Duration timeout;
    private final Map<String, String> env;

    Commands(Duration timeout) {
        this(timeout, Map.of());
    }

    /** @param env set for every command, over this process's environment */
    Commands(Duration timeout, Map<String, String> env) {
        this.timeout = timeout;
        this.env = env;
    }

    /** @throws Cluster.Unreachable when the tool is missing, does not finish in time, or fails */
    String run(List<String> command, String stdin) {
        Result r = tryRun(command, stdin);
        if (r.exitCode() != 0) {
            throw new Cluster.Unreachable(command.get(0) + " failed (exit " + r.exitCode() + "): " + (r.err().isBlank() ? r.out() : r.err()).strip());
        }
        return r.out();
    }

    private static final ExecutorService READERS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "cluster-tool-output");
        t.setDaemon(true);
        return t;
    });

    private static CompletableFuture<String> drain(InputStream stream) {
        return CompletableFuture.supplyAsync(() -> {
            try (stream) {
                return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, READERS);
    }

    Result tryRun(List<String> command, String stdin) {
        Process p;
        try {
            ProcessBuilder builder = new ProcessBuilder(command);
            builder.environment().putAll(env);
            p = builder.start();
        } catch (IOException e) {
            throw new Cluster.Unreachable("cannot run " + command.get(0) + ": " + e.getMessage());
        }
        // Both streams are drained while the tool runs: one that writes more than a pipe holds (64 KiB:
        // `scontrol show job -o` with 200 jobs) would otherwise block until the timeout, and read as a silent controller.
        CompletableFuture<String> out = drain(p.getInputStream()), err = drain(p.getErrorStream());
        try {
            if (stdin != null) p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
            p.getOutputStream().close();
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new Cluster.Unreachable(command.get(0) + " did not answer within " + timeout.toSeconds() + " s");
            }
            return new Result(p.exitValue(), out.get(timeout.toMillis(), TimeUnit.MILLISECONDS), err.get(timeout.toMillis(), TimeUnit.MILLISECONDS));
        } catch (ExecutionException | TimeoutException e) {
            p.destroyForcibly();
            throw new Cluster.Unreachable(command.get(0) + ": its output could not be read: " + e.getMessage());
        } catch (IOException e) {
            p.destroyForcibly();
            throw new Cluster.Unreachable(command.get(0) + ": " + e.getMessage());
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new Cluster.Unreachable(command.get(0) + " interrupted");
        }
    }
}
