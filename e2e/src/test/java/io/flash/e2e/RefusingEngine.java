package io.flash.e2e;

import java.io.*;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * The real Docker engine behind a socket that, while {@link #refusing}, answers chosen requests
 * with the 500 an engine gives when it cannot kill a container ("did not receive an exit event",
 * as seen with a fork bomb's shim). Everything else is passed through byte for byte, request by
 * request (HTTP/1.1 keep-alive: the client sends the next request only after the previous
 * response), so the executor in front of it drives real containers. This is how the "unkillable
 * container" is produced without putting the machine at risk.
 */
final class RefusingEngine implements AutoCloseable {

    private final Path socket;
    private final Path upstream;
    private final Predicate<String> refused;
    private final ServerSocketChannel server;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "refusing-engine");
        t.setDaemon(true);
        return t;
    });
    volatile boolean refusing = true;
    final AtomicInteger refusals = new AtomicInteger();

    /** @param refused which request lines ("POST /v1.41/containers/ID/kill HTTP/1.1") to refuse */
    RefusingEngine(Path upstream, Path socket, Predicate<String> refused) throws IOException {
        this.upstream = upstream;
        this.socket = socket;
        this.refused = refused;
        Files.deleteIfExists(socket);
        server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        threads.submit(this::acceptLoop);
    }

    String dockerHost() {
        return "unix://" + socket;
    }

    private void acceptLoop() {
        while (server.isOpen()) {
            try {
                SocketChannel client = server.accept();
                threads.submit(() -> serve(client));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(SocketChannel client) {
        try (client; SocketChannel engine = SocketChannel.open(UnixDomainSocketAddress.of(upstream))) {
            OutputStream toClient = out(client);
            InputStream fromEngine = in(engine);
            threads.submit(() -> {
                try {
                    fromEngine.transferTo(toClient);
                } catch (IOException ignored) {
                    // either side closed
                }
            });
            InputStream fromClient = new BufferedInputStream(in(client));
            OutputStream toEngine = new BufferedOutputStream(out(engine));
            while (true) {
                byte[] head = readHead(fromClient);
                if (head == null) return;
                String text = new String(head, StandardCharsets.ISO_8859_1);
                String requestLine = text.substring(0, text.indexOf("\r\n"));
                boolean refuse = refusing && refused.test(requestLine);
                OutputStream bodyTo = refuse ? OutputStream.nullOutputStream() : toEngine;
                if (!refuse) toEngine.write(head);
                copyBody(text.toLowerCase(Locale.ROOT), fromClient, bodyTo);
                if (refuse) {
                    refusals.incrementAndGet();
                    byte[] body = "{\"message\":\"Cannot kill container: did not receive an exit event (simulated refusal)\"}"
                            .getBytes(StandardCharsets.UTF_8);
                    String response = "HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\nContent-Length: "
                            + body.length + "\r\n\r\n";
                    synchronized (toClient) {
                        toClient.write(response.getBytes(StandardCharsets.ISO_8859_1));
                        toClient.write(body);
                        toClient.flush();
                    }
                } else {
                    toEngine.flush();
                }
            }
        } catch (IOException ignored) {
            // the client went away
        }
    }

    /*
     * Streams over the channel's own read and write. Channels.newInputStream/newOutputStream take
     * one lock per channel, so a read waiting for the next request would block the response.
     */
    private static InputStream in(SocketChannel channel) {
        return new InputStream() {
            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                return len == 0 ? 0 : channel.read(java.nio.ByteBuffer.wrap(b, off, len));
            }
        };
    }

    private static OutputStream out(SocketChannel channel) {
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[]{(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                java.nio.ByteBuffer buf = java.nio.ByteBuffer.wrap(b, off, len);
                while (buf.hasRemaining()) channel.write(buf);
            }
        };
    }

    /** The request line and headers up to the blank line, or null at the end of the stream. */
    private static byte[] readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int b, state = 0;
        while ((b = in.read()) >= 0) {
            head.write(b);
            state = (b == '\r' && (state == 0 || state == 2)) ? state + 1 : (b == '\n' && (state == 1 || state == 3)) ? state + 1 : 0;
            if (state == 4) return head.toByteArray();
        }
        return null;
    }

    private static void copyBody(String head, InputStream in, OutputStream out) throws IOException {
        int at = head.indexOf("\r\ncontent-length:");
        if (at >= 0) {
            long length = Long.parseLong(head.substring(at + 17, head.indexOf("\r\n", at + 2)).trim());
            copy(in, out, length);
        } else if (head.contains("\r\ntransfer-encoding: chunked")) {
            while (true) {
                String sizeLine = readLine(in, out);
                long size = Long.parseLong(sizeLine.split(";")[0].trim(), 16);
                copy(in, out, size + 2); // the chunk and its CRLF
                if (size == 0) return;
            }
        }
    }

    private static String readLine(InputStream in, OutputStream out) throws IOException {
        StringBuilder line = new StringBuilder();
        int b;
        while ((b = in.read()) >= 0) {
            out.write(b);
            if (b == '\n') break;
            if (b != '\r') line.append((char) b);
        }
        return line.toString();
    }

    private static void copy(InputStream in, OutputStream out, long n) throws IOException {
        byte[] buf = new byte[8192];
        while (n > 0) {
            int read = in.read(buf, 0, (int) Math.min(buf.length, n));
            if (read < 0) throw new EOFException();
            out.write(buf, 0, read);
            n -= read;
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        threads.shutdownNow();
        Files.deleteIfExists(socket);
    }
}
