package io.flash.planner.core.cache;

import io.flash.common.jobfile.JobFiles;
import io.flash.schema.TaskSpec;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

class InputOriginsTest {

    /**
     * trim writes reads.fq, align reads it and writes out.bam, fix rewrites out.bam, and call reads
     * it; stats and count both write counts.txt on parallel branches that report reads.
     */
    private static final String JOB = """
            name: call
            tasks:
              - {name: trim, image: "flash/shell:1", shell: "true", outputs: [reads.fq]}
              - {name: align, image: "flash/shell:1", shell: "true", dependsOn: [trim], inputs: [reads.fq, ref.fa], outputs: [out.bam]}
              - {name: fix, image: "flash/shell:1", shell: "true", dependsOn: [align], inputs: [out.bam], outputs: [out.bam]}
              - {name: stats, image: "flash/shell:1", shell: "true", dependsOn: [fix], outputs: [counts.txt]}
              - {name: count, image: "flash/shell:1", shell: "true", dependsOn: [fix], outputs: [counts.txt]}
              - {name: report, image: "flash/shell:1", shell: "true", dependsOn: [stats, count], inputs: [out.bam, counts.txt, reads.fq]}
            """;

    private final InputOrigins origins;

    InputOriginsTest() throws Exception {
        Map<String, InputOrigins.Step> steps = new HashMap<>();
        for (TaskSpec t : JobFiles.parse(JOB).getTasks()) steps.put(t.getName(), new InputOrigins.Step(t.getDependsOn(), t.getOutputs()));
        origins = new InputOrigins(steps);
    }

    @Test
    void anInputIsTheOutputOfTheNearestAncestorThatWroteIt() {
        assertEquals(Optional.of("trim"), origins.madeBy("align", "reads.fq"));
        assertEquals(Optional.of("align"), origins.madeBy("fix", "out.bam"), "its own output is written after it reads it");
        assertEquals(Optional.of("fix"), origins.madeBy("report", "out.bam"), "fix rewrote what align wrote");
        assertEquals(Optional.of("trim"), origins.madeBy("report", "reads.fq"), "through every level between");
    }

    @Test
    void aFileNoAncestorWroteOrTwoParallelBranchesWroteIsHashed() {
        assertEquals(Optional.empty(), origins.madeBy("align", "ref.fa"), "the job's own file");
        assertEquals(Optional.empty(), origins.madeBy("report", "counts.txt"), "stats and count: which wrote last is a race");
        assertEquals(Optional.empty(), origins.madeBy("trim", "reads.fq"), "no ancestor at all");
    }

    @Test
    void ancestorsAreEveryTaskBeforeItDirectlyOrNot() {
        assertEquals(Set.of("trim", "align", "fix", "stats", "count"), origins.ancestors("report"));
        assertEquals(Set.of(), origins.ancestors("trim"));
    }
}
