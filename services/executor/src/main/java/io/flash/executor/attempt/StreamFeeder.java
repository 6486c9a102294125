package io.flash.executor.attempt;

import io.flash.common.store.ObjectLocation;
import io.flash.executor.files.Beneath;
import io.flash.executor.store.ObjectStore;
import io.flash.schema.Stream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * The executor's half of streaming mode (fetch → compute → delete): delivers every object under
 * the stream's prefix into {@code /work/stream}, never more than {@code window} objects (nor, if
 * set, {@code maxDiskBytes} of them) there at once. Each is downloaded to the executor's scratch
 * directory and renamed in when complete (never through a link the running task made); the container's loop ({@link #script}) runs the task's command on each
 * complete file in order and deletes it, which makes room for the next. {@code /work/.flash/done}
 * says nothing more will come.
 */
final class StreamFeeder {

    private final ObjectStore store;
    private final Stream stream;
    private static final String DIR = "stream";
    private static final String DONE = ".flash/done";

    private final Beneath attemptWork;
    private int peakFiles;

    StreamFeeder(ObjectStore store, Stream stream, Beneath attemptWork) {
        this.store = store;
        this.stream = stream;
        this.attemptWork = attemptWork;
    }

    /** The container's command: runs {@code command} once per delivered object, then exits 0. */
    static String script(List<String> command) {
        StringBuilder quoted = new StringBuilder();
        for (String arg : command) quoted.append(" '").append(arg.replace("'", "'\\''")).append('\'');
        return """
                # Flash streaming mode: run the task's command on each object the executor delivers, then delete it.
                cd /work/stream || exit 70
                while :; do
                  next=$(ls -1 | grep -v '[.]part$' | sort | head -n 1)
                  if [ -n "$next" ]; then
                    export FLASH_STREAM_ITEM="/work/stream/$next" FLASH_STREAM_NAME="${next#*-}"
                    (cd /work &&%s) || exit $?
                    rm -f "/work/stream/$next"
                  elif [ -e /work/.flash/done ]; then
                    exit 0
                  else
                    sleep 0.1
                  fi
                done
                """.formatted(quoted);
    }

    /** Makes the directories the container's loop needs, writable by the task's user. */
    void prepare() throws IOException {
        attemptWork.directories(DIR);
        attemptWork.directories(".flash");
    }

    /**
     * Delivers everything, waiting for room as the container consumes. Stops early when
     * {@code running} turns false (the container exited).
     * @return how many objects were delivered
     */
    int feed(BooleanSupplier running) throws Exception {
        List<ObjectStore.Listed> objects = store.list(ObjectLocation.parsePrefix(stream.getFrom()));
        int index = 0;
        for (ObjectStore.Listed object : objects) {
            while (!hasRoomFor(object.size())) {
                if (!running.getAsBoolean()) return index;
                Thread.sleep(50);
            }
            if (!running.getAsBoolean()) return index;
            String key = object.location().key();
            String name = String.format("%08d-%s", index, key.substring(key.lastIndexOf('/') + 1));
            Path made = attemptWork.scratch().file();
            try {
                store.download(object.location(), made);
                attemptWork.place(made, DIR + "/" + name);
            } finally {
                attemptWork.scratch().discard(made);
            }
            index++;
            peakFiles = Math.max(peakFiles, present().size());
        }
        attemptWork.write(DONE, new byte[0]);
        return index;
    }

    /** The most objects that were on the node at once. */
    int peakFiles() {
        return peakFiles;
    }

    private boolean hasRoomFor(long size) throws IOException {
        List<Beneath.Entry> present = present();
        if (present.isEmpty()) return true; // one object at a time always goes, however large
        if (present.size() >= stream.getWindow()) return false;
        if (stream.getMaxDiskBytes() == null) return true;
        long used = 0;
        for (Beneath.Entry e : present) used += e.size();
        return used + size <= stream.getMaxDiskBytes();
    }

    private List<Beneath.Entry> present() throws IOException {
        return attemptWork.list(DIR);
    }
}
