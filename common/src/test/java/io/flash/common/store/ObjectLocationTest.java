package io.flash.common.store;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class ObjectLocationTest {

    @Test
    void parsesObjectsAndPrefixes() {
        assertEquals(new ObjectLocation("genomes", "ref/lambda.fa"), ObjectLocation.parse("s3://genomes/ref/lambda.fa"));
        assertEquals("s3://results/runs/job-1/out.vcf", ObjectLocation.parsePrefix("s3://results/runs").child("job-1/out.vcf").toString());
        assertEquals("s3://results/job-1/out.vcf", ObjectLocation.parsePrefix("s3://results").child("job-1/out.vcf").toString());
        assertEquals("s3://results/runs/x", ObjectLocation.parsePrefix("s3://results/runs/").child("x").toString());
    }

    @Test
    void refusesWhatIsNotAnObjectSayingWhy() {
        var e = assertThrows(IllegalArgumentException.class, () -> ObjectLocation.parse("s3://genomes"));
        assertTrue(e.getMessage().startsWith("'s3://genomes' is not s3://bucket/key"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ObjectLocation.parse("s3://UPPER/key"));
        assertThrows(IllegalArgumentException.class, () -> ObjectLocation.parsePrefix("gs://bucket"));
        assertFalse(ObjectLocation.isObjectUri("ref/lambda.fa"));
    }
}
