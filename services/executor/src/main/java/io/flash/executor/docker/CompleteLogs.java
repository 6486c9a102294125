package io.flash.executor.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.command.LogContainerCmd;
import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.api.model.StreamType;
import io.flash.executor.engine.ContainerRuntime;
import java.io.IOException;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jboss.logging.Logger;

/**
 * A container's output as it is written, and all of it: the engine's follow stream, and once that
 * stream ends, a read back of the engine's stored log. The engine (Docker 20.10's json-file
 * follower) ends a follow stream when the container stops, and a container that exits within
 * milliseconds of the request can stop it before its last messages were read from the file: one
 * short task in ten to thirty lost its whole output that way. Each stream (stdout, stderr) of the
 * stored log starts with exactly the bytes the follow stream delivered of it, so the read back
 * skips that many bytes of each and delivers the rest, in the engine's order, each byte once. The
 * output itself is never parsed (timestamps were tried: the engine packs several messages into one
 * frame, and a message without a newline cannot be told from the next one's stamp).
 * The cost: one more read of the stored log per attempt, after the container stopped.
 */
final class CompleteLogs implements ContainerRuntime.LogFollow {

    private static final Logger LOG = Logger.getLogger(CompleteLogs.class);

    private final DockerClient docker;
    private final String containerId;
    private final Consumer<byte[]> output;
    private final ResultCallback.Adapter<Frame> follow;
    /** Bytes delivered of each stream, in the engine's order. */
    private final Map<StreamType, Long> delivered = new EnumMap<>(StreamType.class);
    private long recovered;

    private CompleteLogs(DockerClient docker, String containerId, Consumer<byte[]> output) {
        this.docker = docker;
        this.containerId = containerId;
        this.output = output;
        this.follow = read(true).exec(new ResultCallback.Adapter<>() {
            @Override
            public void onNext(Frame frame) {
                deliver(frame.getStreamType(), frame.getPayload());
            }
        });
    }

    static CompleteLogs follow(DockerClient docker, String containerId, Consumer<byte[]> output) {
        return new CompleteLogs(docker, containerId, output);
    }

    private LogContainerCmd read(boolean following) {
        return docker.logContainerCmd(containerId).withStdOut(true).withStdErr(true).withFollowStream(following);
    }

    /** Waits for the follow stream to end (the container stopped), then delivers what it missed. */
    @Override
    public boolean awaitCompletion(long time, TimeUnit unit) throws InterruptedException {
        if (!follow.awaitCompletion(time, unit)) return false;
        catchUp();
        return true;
    }

    private void catchUp() throws InterruptedException {
        Map<StreamType, Long> toSkip;
        synchronized (this) {
            toSkip = new EnumMap<>(delivered);
        }
        read(false).exec(new ResultCallback.Adapter<Frame>() {
            @Override
            public void onNext(Frame frame) {
                byte[] payload = frame.getPayload();
                long skip = toSkip.getOrDefault(frame.getStreamType(), 0L);
                if (skip >= payload.length) {
                    toSkip.put(frame.getStreamType(), skip - payload.length);
                    return;
                }
                toSkip.put(frame.getStreamType(), 0L);
                byte[] missed = skip == 0 ? payload : Arrays.copyOfRange(payload, (int) skip, payload.length);
                synchronized (CompleteLogs.this) {
                    recovered += missed.length;
                }
                deliver(frame.getStreamType(), missed);
            }
        }).awaitCompletion(30, TimeUnit.SECONDS);
        long missed;
        synchronized (this) {
            missed = recovered;
        }
        if (missed > 0) {
            LOG.infof("container %s: the engine's follow stream ended %d bytes early; they were read back from its stored log",
                    containerId, missed);
        }
    }

    private synchronized void deliver(StreamType stream, byte[] bytes) {
        delivered.merge(stream, (long) bytes.length, Long::sum);
        output.accept(bytes);
    }

    @Override
    public void close() throws IOException {
        follow.close();
    }
}
