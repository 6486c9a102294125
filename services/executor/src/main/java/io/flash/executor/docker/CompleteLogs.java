package io.flash.executor.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.command.LogContainerCmd;
import com.github.dockerjava.api.model.Frame;
import io.flash.executor.node.ContainerRuntime;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A container's output as it is written, and all of it: the engine's follow stream, and once that
 * stream ends, a read back of the engine's stored log from the last message it delivered. The
 * engine (Docker 20.10's json-file follower) ends a follow stream when the container stops, and a
 * container that exits within milliseconds of the request can stop it before its last messages
 * were read from the file: one short task in ten to thirty lost its whole output that way. Every
 * message carries the engine's timestamp, so the read back delivers exactly the messages the
 * stream did not, in order, each once.
 */
final class CompleteLogs implements ContainerRuntime.LogFollow {

    private static final Logger LOG = Logger.getLogger(CompleteLogs.class);

    private final DockerClient docker;
    private final String containerId;
    private final Consumer<byte[]> output;
    private final ResultCallback.Adapter<Frame> follow;
    /** The engine's time of the last message delivered, and how many delivered messages carry it. */
    private Instant last;
    private int atLast;
    private long recovered;

    private CompleteLogs(DockerClient docker, String containerId, Consumer<byte[]> output) {
        this.docker = docker;
        this.containerId = containerId;
        this.output = output;
        this.follow = read(true).exec(new ResultCallback.Adapter<>() {
            @Override
            public void onNext(Frame frame) {
                deliver(frame);
            }
        });
    }

    static CompleteLogs follow(DockerClient docker, String containerId, Consumer<byte[]> output) {
        return new CompleteLogs(docker, containerId, output);
    }

    private LogContainerCmd read(boolean following) {
        return docker.logContainerCmd(containerId).withStdOut(true).withStdErr(true).withTimestamps(true).withFollowStream(following);
    }

    /** Waits for the follow stream to end (the container stopped), then delivers what it missed. */
    @Override
    public boolean awaitCompletion(long time, TimeUnit unit) throws InterruptedException {
        if (!follow.awaitCompletion(time, unit)) return false;
        catchUp();
        return true;
    }

    /** Bytes the follow stream missed and the read back delivered (0 when it missed nothing). */
    synchronized long recovered() {
        return recovered;
    }

    private void catchUp() throws InterruptedException {
        Instant from;
        int skip;
        synchronized (this) {
            from = last;
            skip = atLast;
        }
        LogContainerCmd stored = read(false);
        if (from != null) stored.withSince((int) from.getEpochSecond());
        int[] toSkip = {skip};
        stored.exec(new ResultCallback.Adapter<Frame>() {
            @Override
            public void onNext(Frame frame) {
                Stamped message = Stamped.of(frame.getPayload());
                if (from != null && message.at() != null) {
                    int order = message.at().compareTo(from);
                    if (order < 0) return;
                    if (order == 0 && toSkip[0] > 0) {
                        toSkip[0]--;
                        return;
                    }
                }
                synchronized (CompleteLogs.this) {
                    recovered += message.payload().length;
                }
                deliver(message);
            }
        }).awaitCompletion(30, TimeUnit.SECONDS);
        long missed = recovered();
        if (missed > 0) {
            LOG.infof("container %s: the engine's follow stream ended %d bytes early; they were read back from its stored log",
                    containerId, missed);
        }
    }

    private void deliver(Frame frame) {
        deliver(Stamped.of(frame.getPayload()));
    }

    private synchronized void deliver(Stamped message) {
        if (message.at() != null) {
            if (message.at().equals(last)) {
                atLast++;
            } else {
                last = message.at();
                atLast = 1;
            }
        }
        output.accept(message.payload());
    }

    @Override
    public void close() throws IOException {
        follow.close();
    }

    /** One message of the engine's log: its time (RFC 3339, nanoseconds) and its bytes. */
    private record Stamped(Instant at, byte[] payload) {
        static Stamped of(byte[] frame) {
            int space = 0;
            while (space < frame.length && space < 40 && frame[space] != ' ') space++;
            if (space >= frame.length || frame[space] != ' ') return new Stamped(null, frame);
            try {
                Instant at = Instant.parse(new String(frame, 0, space, StandardCharsets.US_ASCII));
                return new Stamped(at, Arrays.copyOfRange(frame, space + 1, frame.length));
            } catch (DateTimeParseException e) {
                return new Stamped(null, frame);
            }
        }
    }
}
