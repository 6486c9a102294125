package io.flash.ingest.core.validation;

import io.flash.schema.Fetch;
import io.flash.schema.FieldError;
import io.flash.schema.Mount;
import io.flash.schema.Upload;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Every bind, fetch and upload Docker or the executor would refuse is refused at submission, by field. */
class FileRulesTest {

    private static List<String> reasons(List<FieldError> errors) {
        return errors.stream().map(e -> e.getField() + ": " + e.getReason()).toList();
    }

    @Test
    void mountsDockerWouldRefuseOrThatWouldShadowTheEngineAreRefused() {
        List<FieldError> errors = new ArrayList<>();
        List<Mount> kept = FileRules.mounts(List.of(new Mount("/data", "tes/fs/data", false), new Mount("data", "x", false),
                new Mount("/proc/self", "x", true), new Mount("/a:b", "x", false), new Mount("/workspace", "x", false),
                new Mount("/e", "../etc", true), new Mount("/f", ".flash/logs", true), new Mount("/data/", "y", false),
                new Mount("/tmp", "tes/fs/tmp", false)), "m", errors);
        assertEquals(List.of("/data", "/tmp"), kept.stream().map(Mount::getPath).toList());
        assertEquals(List.of("m[1].path: 'data' is not an absolute path in the container",
                "m[2].path: '/proc/self' is under /proc, /sys or /dev, which the engine owns",
                "m[3].path: '/a:b': Docker cannot bind a path with ':' or ','",
                "m[4].path: '/workspace' is the container's root or a directory Flash mounts itself (/workspace, /work)",
                "m[5].source: '../etc' is not a path inside the job workspace (relative to /workspace, without '.' or '..')",
                "m[6].source: '.flash/logs': .flash in the workspace is Flash's own (logs, scripts)",
                "m[7].path: '/data' is mounted twice"), reasons(errors));
    }

    @Test
    void fetchesNeedOneSourceTheExecutorServes() {
        List<FieldError> errors = new ArrayList<>();
        FileRules.fetches(List.of(new Fetch("s3://bucket/key", null, "a", false), new Fetch(null, null, "b", false),
                new Fetch("s3://bucket/k", "x", "c", false), new Fetch("ftp://host/f", null, "d", false),
                new Fetch("file://relative/x", null, "e", false), new Fetch("https://host/f", null, "f", true),
                new Fetch(null, "x".repeat(FileRules.MAX_INLINE_BYTES + 1), "g", false)), "f", errors);
        assertEquals(List.of("f[1]: give either url or content, not neither", "f[2]: give either url or content, not both",
                "f[3].url: 'ftp://host/f': Flash serves [file://, http://, https://, s3://] here",
                "f[4].url: 'file://relative/x' needs an absolute path without '..' (file:///shared/…)",
                "f[5].directory: an http(s) URL names one file; directories come from s3:// or file://",
                "f[6].content: 1048577 bytes inline; at most 1048576 — put larger files in the object store and give their url"),
                reasons(errors));
    }

    @Test
    void uploadsGoToTheObjectStoreOrSharedStorageOnly() {
        List<FieldError> errors = new ArrayList<>();
        List<Upload> kept = FileRules.uploads(List.of(new Upload("out/*.txt", "s3://bucket/out/", "out", "/out/*.txt"),
                new Upload("a", "https://host/a", null, null), new Upload("out/x", "s3://bucket/x", "other", null)), "u", errors);
        assertEquals(1, kept.size());
        assertEquals(List.of("u[1].url: 'https://host/a': Flash serves [file://, s3://] here",
                "u[2].prefix: 'other' does not begin 'out/x'"), reasons(errors));
    }
}
