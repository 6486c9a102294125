package io.flash.e2e;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Debian's Snakemake 7 runs a workflow on Flash through TES (issue 29), as the README shows: py-tes
 * from e2e/clients, each rule a TES task in flash/snakemake (made from Debian packages,
 * infra/images/snakemake), the work directory under the nodes' shared root. Three rules: one fans
 * out over three samples, one gathers them, and the target.
 */
class SnakemakeTest extends StackTest {

    private static final Path HOME = Path.of(System.getProperty("flash.home", "..")).toAbsolutePath().normalize();
    private static final String SNAKEFILE = """
            SAMPLES = ["lambda", "ecoli", "yeast"]

            rule all:
                input: "results/summary.txt"

            rule count:
                output: "results/{sample}.len"
                shell: "printf '%s' {wildcards.sample} | wc -c > {output}"

            rule gather:
                input: expand("results/{sample}.len", sample=SAMPLES)
                output: "results/summary.txt"
                shell: "for f in {input}; do printf '%s %s\\\\n' $(basename $f .len) $(cat $f); done > {output}"
            """;

    @BeforeAll
    void buildTheImage() throws Exception {
        Process build = new ProcessBuilder("bash", HOME.resolve("infra/images/snakemake/build.sh").toString()).inheritIO().start();
        assertTrue(build.waitFor(10, TimeUnit.MINUTES) && build.exitValue() == 0, "infra/images/snakemake/build.sh failed");
    }

    @Test
    void aFanOutAndAGatherRunAsTesTasksAndTheirOutputsAreRight() throws Exception {
        Path work = stack.dataDir().resolve("shared/snakemake-" + UUID.randomUUID().toString().substring(0, 8));
        Files.createDirectories(work);
        Files.writeString(work.resolve("Snakefile"), SNAKEFILE);
        ProcessBuilder snakemake = new ProcessBuilder("snakemake", "--tes", stack.apiUrl(), "--container-image", "flash/snakemake:1",
                "--jobs", "4", "--latency-wait", "10").directory(work.toFile()).redirectErrorStream(true)
                .redirectOutput(work.resolve("snakemake.log").toFile());
        snakemake.environment().put("PYTHONPATH", HOME.resolve("e2e/clients/py-tes").toString());
        long t0 = System.nanoTime();
        Process run = snakemake.start();
        boolean ended = run.waitFor(6, TimeUnit.MINUTES);
        if (!ended) run.destroyForcibly();
        String log = Files.readString(work.resolve("snakemake.log"));
        assertTrue(ended && run.exitValue() == 0, () -> "snakemake --tes did not finish well:\n" + log);
        System.out.printf("Snakemake on Flash through TES: three rules, four tasks, in %d ms%n", (System.nanoTime() - t0) / 1_000_000);
        assertEquals(List.of("lambda 6", "ecoli 5", "yeast 5"), Files.readAllLines(work.resolve("results/summary.txt")));
        long completed = log.lines().filter(l -> l.contains("[TES] Task completed")).count();
        assertTrue(completed >= 4 && !log.contains("[TES] Task errored"), () -> "three counts and the gather, each a TES task:\n" + log);
    }
}
