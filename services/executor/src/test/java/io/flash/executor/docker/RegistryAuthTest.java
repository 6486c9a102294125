package io.flash.executor.docker;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class RegistryAuthTest {

    @Test
    void matchesTheRegistryHostOfAnImage() {
        RegistryAuth auth = RegistryAuth.parse("127.0.0.1:5000=lab:s3cr:et; quay.io=bot:pw");
        assertEquals("lab", auth.forImage("127.0.0.1:5000/tools/bwa:0.7").orElseThrow().getUsername());
        assertEquals("s3cr:et", auth.forImage("127.0.0.1:5000/tools/bwa:0.7").orElseThrow().getPassword(), "':' allowed in passwords");
        assertEquals("bot", auth.forImage("quay.io/biocontainers/samtools:1.17").orElseThrow().getUsername());
        assertTrue(auth.forImage("flash/shell:1").isEmpty(), "no registry host in the name");
        assertTrue(auth.forImage("busybox").isEmpty());
    }

    @Test
    void neverShowsPasswords() {
        RegistryAuth auth = RegistryAuth.parse("r.example:443=u:topsecret");
        assertFalse(auth.toString().contains("topsecret"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RegistryAuth.parse("host-without-credentials"));
        assertFalse(e.getMessage().contains("password="));
    }
}
