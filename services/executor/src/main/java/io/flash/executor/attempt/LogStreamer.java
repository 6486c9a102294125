package io.flash.executor.attempt;

import io.flash.schema.LogChunk;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Turns a container's output into ordered chunks of whole lines for the logs topic, keeps the
 * complete log in a file, and remembers the last lines for the final event. Chunks go out when
 * they reach {@code chunkBytes} or when {@link #flush} is called; beyond {@code bytesPerSecond}
 * output is only written to the file, and the next chunk says how much was left out.
 */
final class LogStreamer implements AutoCloseable {

    interface Sink {
        void send(LogChunk chunk) throws Exception;
    }

    private final String nodeId, jobId, taskId, attemptId;
    private final Sink sink;
    private final BufferedWriter file;
    private final int chunkBytes;
    private final long bytesPerSecond;
    private final int tailLines;
    private final StringBuilder pending = new StringBuilder();
    private final StringBuilder partialLine = new StringBuilder();
    private final Deque<String> tail = new ArrayDeque<>();
    private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);
    private ByteBuffer undecoded = ByteBuffer.allocate(8192);
    private long seq;
    private long dropped;
    private long windowStart = System.nanoTime();
    private long windowBytes;

    LogStreamer(String nodeId, String jobId, String taskId, String attemptId, OutputStream logFile, Sink sink,
                int chunkBytes, long bytesPerSecond, int tailLines) throws IOException {
        this.nodeId = nodeId;
        this.jobId = jobId;
        this.taskId = taskId;
        this.attemptId = attemptId;
        this.sink = sink;
        this.chunkBytes = chunkBytes;
        this.bytesPerSecond = bytesPerSecond;
        this.tailLines = tailLines;
        this.file = new BufferedWriter(new OutputStreamWriter(logFile, StandardCharsets.UTF_8));
    }

    /** Output as the engine delivers it: any size; lines, and a character's bytes, may be split across calls. */
    synchronized void accept(byte[] bytes) throws Exception {
        String text = decode(bytes, false);
        file.write(text);
        partialLine.append(text);
        int newline;
        while ((newline = partialLine.indexOf("\n")) >= 0) {
            line(partialLine.substring(0, newline + 1));
            partialLine.delete(0, newline + 1);
        }
    }

    private void line(String line) throws Exception {
        tail.addLast(line.endsWith("\n") ? line.substring(0, line.length() - 1) : line);
        while (tail.size() > tailLines) tail.removeFirst();
        long now = System.nanoTime();
        if (now - windowStart > 1_000_000_000L) {
            windowStart = now;
            windowBytes = 0;
        }
        if (windowBytes + line.length() > bytesPerSecond) {
            dropped += line.length();
            return;
        }
        windowBytes += line.length();
        pending.append(line);
        if (pending.length() >= chunkBytes) send(false);
    }

    /** Sends what is pending (a timer calls this, so quiet tasks' lines still travel promptly). */
    synchronized void flush() throws Exception {
        if (pending.length() > 0) send(false);
    }

    /** The container exited: the rest goes out, marked last, before the exit is reported. */
    synchronized void finish() throws Exception {
        String rest = decode(new byte[0], true);
        file.write(rest);
        partialLine.append(rest);
        if (partialLine.length() > 0) {
            line(partialLine.toString());
            partialLine.setLength(0);
        }
        send(true);
        file.flush();
    }

    /** Decodes what is complete; the bytes of a character cut at the end wait for the next call. */
    private String decode(byte[] bytes, boolean endOfInput) {
        if (undecoded.remaining() < bytes.length) {
            ByteBuffer larger = ByteBuffer.allocate(undecoded.position() + bytes.length);
            undecoded.flip();
            larger.put(undecoded);
            undecoded = larger;
        }
        undecoded.put(bytes).flip();
        CharBuffer out = CharBuffer.allocate((int) (undecoded.remaining() * 1.1) + 8);
        utf8.decode(undecoded, out, endOfInput);
        if (endOfInput) utf8.flush(out);
        undecoded.compact();
        return out.flip().toString();
    }

    String tail() {
        return String.join("\n", tail) + (tail.isEmpty() ? "" : "\n");
    }

    private void send(boolean last) throws Exception {
        sink.send(LogChunk.newBuilder().setAttemptId(attemptId).setJobId(jobId).setTaskId(taskId).setNodeId(nodeId)
                .setSeq(seq++).setText(pending.toString()).setLast(last).setDroppedBytes(dropped)
                .setAt(System.currentTimeMillis()).build());
        pending.setLength(0);
    }

    @Override
    public synchronized void close() throws IOException {
        file.close();
    }
}
