package io.flash.batch.kubernetes;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.flash.batch.core.Workspaces;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * What a pod printed, from the kubelet through the API server's log endpoint, in the pieces the
 * shard streams; everything else (declared outputs) from the workspace claim, as for Slurm. The
 * log API has no byte offset, so each piece reads the log from its start up to the end of the
 * piece ({@code limitBytes}) and keeps what lies past {@code from}: a long log costs more per
 * tick than a file does (docs/frameworks.md). A pod that is gone has no log left to read.
 */
public final class PodLogs implements Workspaces {

    private static final int TAIL_LINES = 40;
    private final KubernetesClient client;
    private final String namespace;
    private final Workspaces files;

    public PodLogs(KubernetesClient client, String namespace, Workspaces files) {
        this.client = client;
        this.namespace = namespace;
        this.files = files;
    }

    @Override
    public Output output(String jobId, String attemptId, long from, int max, boolean toTheEnd) {
        byte[] log;
        try {
            log = log(attemptId, toTheEnd ? null : (int) Math.min(Integer.MAX_VALUE, from + max)).getBytes(StandardCharsets.UTF_8);
        } catch (KubernetesClientException e) {
            return new Output("", from, 0); // not started yet, or the API server is away: read again next tick
        }
        if (log.length <= from) return new Output("", from, 0);
        return Output.cut(log, (int) from, (int) Math.min(max, log.length - from), from, max, toTheEnd, log.length);
    }

    /** The log up to {@code limitBytes} (null: all the kubelet keeps, its current file of at most containerLogMaxSize, 10 MiB by default). */
    private String log(String attemptId, Integer limitBytes) {
        // No wait for the pod to be ready: the shard reads a running or ended pod's log, and must not block its tick.
        var pod = client.pods().inNamespace(namespace).withName(PodManifests.podName(attemptId)).withReadyWaitTimeout(0);
        String log = limitBytes == null ? pod.getLog() : pod.limitBytes(limitBytes).getLog();
        return log == null ? "" : log;
    }

    @Override
    public String tail(String jobId, String attemptId) {
        try {
            return client.pods().inNamespace(namespace).withName(PodManifests.podName(attemptId)).withReadyWaitTimeout(0)
                    .tailingLines(TAIL_LINES).getLog();
        } catch (KubernetesClientException e) {
            return null;
        }
    }

    @Override
    public boolean oomKilled(String jobId, String attemptId) {
        return false; // the pod's status says OOMKilled itself (PodPhases)
    }

    @Override
    public boolean timedOut(String jobId, String attemptId) {
        return false; // the pod's status says DeadlineExceeded itself (PodPhases)
    }

    @Override
    public Integer exitStatus(String jobId, String attemptId) {
        return null; // a pod is kept until Flash has read its end; one that is gone left no status
    }

    @Override
    public Usage usage(String jobId, String attemptId) {
        return null; // the pod's use lives in the metrics API (metrics-server), which a cluster need not have (docs/frameworks.md)
    }

    @Override
    public Outputs outputs(String jobId, List<String> declared) {
        return files.outputs(jobId, declared);
    }
}
