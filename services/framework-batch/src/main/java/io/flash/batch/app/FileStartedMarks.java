package io.flash.batch.app;

import io.flash.batch.cluster.JobScripts;
import io.flash.batch.core.ClusterWorker;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;

/** The started marks job scripts leave in their workspaces on the shared storage, each holding its job's id. */
final class FileStartedMarks implements ClusterWorker.StartedMarks {

    private final JobScripts scripts;

    FileStartedMarks(JobScripts scripts) {
        this.scripts = scripts;
    }

    @Override
    public String clusterId(String jobId, String attemptId) {
        try {
            String id = Files.readString(scripts.startedMark(jobId, attemptId)).strip();
            return id.isEmpty() ? null : id; // a mark left by a script older than ids in marks
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            return null; // the storage is away: the look before the batch is the only word, as before marks held ids
        }
    }
}
