package io.flash.executor.files;

import io.flash.common.cache.CacheKeys;
import io.flash.executor.engine.ContainerRuntime;
import io.flash.schema.Fetch;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class InputIdentitiesTest {

    @TempDir
    Path dir;
    private Path workspace;
    private InputIdentities identities;

    @BeforeEach
    void setUp() throws Exception {
        workspace = Files.createDirectories(dir.resolve("work/jobs/job-1"));
        Beneath beneath = new Beneath(workspace, new Scratch(dir.resolve("work"), "n1", TaskOwner.of(ContainerRuntime.TASK_USER)));
        identities = new InputIdentities(beneath, Map.of("aligned.bam", "v1:upstream"), image -> "sha256:digest-of-" + image,
                url -> "etag:\"e1\";length:42 " + url);
    }

    @Test
    void aWorkspaceFileIsKnownByItsContentAndAnUpstreamOutputByItsMakersKey() throws Exception {
        Files.writeString(workspace.resolve("reads.fq"), "@r1\nACGT\n");
        Files.writeString(workspace.resolve("aligned.bam"), "never read: the upstream key names it");
        assertEquals(CacheKeys.content("@r1\nACGT\n".getBytes(StandardCharsets.UTF_8)), identities.input("reads.fq"));
        assertEquals(CacheKeys.madeBy("v1:upstream", "aligned.bam"), identities.input("aligned.bam"));
        String before = identities.input("reads.fq");
        Files.writeString(workspace.resolve("reads.fq"), "@r2\nACGT\n");
        assertNotEquals(before, identities.input("reads.fq"));
        assertEquals("absent", identities.input("missing.fq"));
    }

    @Test
    void aDirectoryIsKnownByItsFilesPathsAndContents() throws Exception {
        Files.createDirectories(workspace.resolve("ref/idx"));
        Files.writeString(workspace.resolve("ref/genome.fa"), ">chr1\nACGT\n");
        Files.writeString(workspace.resolve("ref/idx/genome.fai"), "chr1\t4\n");
        String tree = identities.input("ref");
        assertEquals(tree, identities.input("ref"), "the same files, the same identity");
        Files.move(workspace.resolve("ref/idx/genome.fai"), workspace.resolve("ref/idx/other.fai"));
        String renamed = identities.input("ref");
        assertNotEquals(tree, renamed, "a file renamed");
        Files.writeString(workspace.resolve("ref/genome.fa"), ">chr1\nACGA\n");
        assertNotEquals(renamed, identities.input("ref"), "a file changed");
    }

    @Test
    void aLinkATaskLeftIsRefusedNotFollowed() throws Exception {
        Files.writeString(dir.resolve("secret"), "root only");
        Files.createSymbolicLink(workspace.resolve("reads.fq"), dir.resolve("secret"));
        UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> identities.input("reads.fq"));
        assertInstanceOf(Beneath.Refused.class, e.getCause());
    }

    @Test
    void remoteInputsAndFetchesAreKnownByWhatTheirStoreSaysAndInlineOnesByContent() {
        assertEquals("etag:\"e1\";length:42 s3://lab/ref.fa", identities.input("s3://lab/ref.fa"));
        assertEquals("etag:\"e1\";length:42 https://example.org/a.vcf",
                identities.fetch(Fetch.newBuilder().setUrl("https://example.org/a.vcf").setTo("a.vcf").build()));
        assertEquals(CacheKeys.content("@r1".getBytes(StandardCharsets.UTF_8)),
                identities.fetch(Fetch.newBuilder().setContent("@r1").setTo("reads.fq").build()));
        assertEquals("sha256:digest-of-flash/shell:1", identities.image("flash/shell:1"));
    }
}
