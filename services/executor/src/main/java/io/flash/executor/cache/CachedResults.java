package io.flash.executor.cache;

import io.flash.executor.files.Beneath;
import io.flash.executor.files.InputIdentities;
import io.flash.executor.files.Scratch;
import io.flash.schema.CacheEntry;
import io.flash.schema.OutputFile;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Serves a unit from an index entry (docs/caching.md): each output the entry names is copied from
 * the workspace of the job that made it into this job's, and checked against the identity the
 * entry recorded. Any output gone, changed or unreadable makes the entry unusable: the unit runs.
 * A unit of the same job (a retry, a resubmission of the same id) finds its outputs in place and
 * only checks them.
 */
public final class CachedResults {

    private final Path jobsRoot;
    private final Scratch scratch;

    /** @param jobsRoot where every job's workspace is, by job id (shared storage when nodes are separate machines) */
    public CachedResults(Path jobsRoot, Scratch scratch) {
        this.jobsRoot = jobsRoot;
        this.scratch = scratch;
    }

    /** @return why the entry cannot be used, or empty when every output is in this job's workspace as recorded */
    public Optional<String> restore(CacheEntry entry, String jobId) {
        Beneath source = new Beneath(jobsRoot.resolve(entry.getJobId()), scratch);
        Beneath target = new Beneath(jobsRoot.resolve(jobId), scratch);
        try {
            for (OutputFile output : entry.getOutputs()) {
                String path = output.getPath();
                if (!entry.getJobId().equals(jobId)) {
                    if (!source.copyTo(target, path)) return Optional.of("output " + path + " of " + entry.getAttemptId() + " is gone");
                }
                String found = InputIdentities.identity(target, path);
                if (!found.equals(output.getSha256())) {
                    return Optional.of("output " + path + " of " + entry.getAttemptId() + " changed since it was made");
                }
            }
            return Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.of("outputs of " + entry.getAttemptId() + " could not be read: " + e.getMessage());
        }
    }
}
