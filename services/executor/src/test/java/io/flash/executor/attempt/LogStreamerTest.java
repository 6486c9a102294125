package io.flash.executor.attempt;

import io.flash.schema.LogChunk;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.*;

class LogStreamerTest {

    @TempDir
    Path dir;
    private final List<LogChunk> sent = new ArrayList<>();

    private LogStreamer streamer(int chunkBytes, long bytesPerSecond, int tailLines) throws Exception {
        Files.createDirectories(dir.resolve("logs"));
        return new LogStreamer("n1", "j1", "j1.t", "a1", Files.newOutputStream(dir.resolve("logs/a1.log")), sent::add, chunkBytes, bytesPerSecond, tailLines);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private String text() {
        return sent.stream().map(LogChunk::getText).reduce("", String::concat);
    }

    @Test
    void linesSplitAcrossDeliveriesTravelWholeInOrderAndTheLastChunkSaysSo() throws Exception {
        try (LogStreamer logs = streamer(1 << 16, 1 << 20, 20)) {
            logs.accept(utf8("first li"));
            logs.flush();
            assertTrue(sent.isEmpty(), "half a line does not travel");
            logs.accept(utf8("ne\nsecond line\nno newline at the end"));
            logs.flush();
            logs.finish();
        }
        assertEquals("first line\nsecond line\nno newline at the end", text());
        assertEquals(List.of(0L, 1L), sent.stream().map(LogChunk::getSeq).toList());
        assertTrue(sent.get(1).getLast());
        assertEquals("first line\nsecond line\nno newline at the end", Files.readString(dir.resolve("logs/a1.log")));
    }

    @Test
    void aChunkGoesOutWhenItIsFull() throws Exception {
        try (LogStreamer logs = streamer(10, 1 << 20, 20)) {
            logs.accept(utf8("0123456789\n"));
            assertEquals(1, sent.size(), "sent without waiting for the timer");
            logs.finish();
        }
    }

    @Test
    void outputBeyondTheRateIsKeptInTheFileAndCountedInTheStream() throws Exception {
        try (LogStreamer logs = streamer(1 << 16, 20, 20)) {
            logs.accept(utf8("kept line\n" + "dropped line 1\n" + "dropped line 2\n"));
            logs.finish();
        }
        assertEquals("kept line\n", text());
        assertEquals(30, sent.get(sent.size() - 1).getDroppedBytes());
        assertTrue(Files.readString(dir.resolve("logs/a1.log")).endsWith("dropped line 2\n"), "the file has everything");
    }

    @Test
    void theTailIsTheLastLines() throws Exception {
        LogStreamer logs = streamer(1 << 16, 1 << 20, 2);
        logs.accept(utf8("a\nb\nc\nd"));
        logs.finish();
        logs.close();
        assertEquals("c\nd\n", logs.tail());
    }

    /** The engine cuts frames anywhere: a character whose bytes fall in two deliveries must arrive whole. */
    @Test
    void aCharacterCutBetweenTwoDeliveriesArrivesWhole() throws Exception {
        byte[] bytes = utf8("sample Müller 🧬 done\n");
        int cut = "sample M".length() + 1; // inside the two bytes of ü
        try (LogStreamer logs = streamer(1 << 16, 1 << 20, 20)) {
            logs.accept(Arrays.copyOfRange(bytes, 0, cut));
            int cutEmoji = new String(bytes, StandardCharsets.UTF_8).indexOf('🧬');
            int emojiByte = utf8(new String(bytes, StandardCharsets.UTF_8).substring(0, cutEmoji)).length + 2;
            logs.accept(Arrays.copyOfRange(bytes, cut, emojiByte)); // half of the four bytes of the emoji
            logs.accept(Arrays.copyOfRange(bytes, emojiByte, bytes.length));
            logs.finish();
        }
        assertEquals("sample Müller 🧬 done\n", text());
        assertEquals("sample Müller 🧬 done\n", Files.readString(dir.resolve("logs/a1.log")));
    }
}
