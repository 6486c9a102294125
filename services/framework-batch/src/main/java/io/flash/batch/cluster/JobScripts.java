package io.flash.batch.cluster;

import io.flash.schema.NetworkMode;
import io.flash.schema.TaskDefinition;
import io.flash.schema.TaskReady;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The script a cluster job runs for one attempt: the task's container, with the executor's sandbox
 * (non-root, read-only root, no capabilities, no network unless asked, a pids limit, the task's cpu
 * and memory), the job's workspace from storage the cluster shares mounted at /workspace — the same
 * layout as Flash's own nodes ({@code <work root>/jobs/<job id>}), so tasks on both exchange files.
 * An OOM kill and the task's timeout are told apart from an exit 137 by marker files the adapter reads. On an HPC cluster
 * without Docker, `apptainer exec --containall --no-home --bind <workspace>:/workspace docker://image`
 * takes the place of `docker run` (docs/frameworks.md).
 */
public final class JobScripts {

    private final String frameworkId;
    private final Path workRoot;
    private final int pidsPerCpu;

    public JobScripts(String frameworkId, Path workRoot, int pidsPerCpu) {
        this.frameworkId = frameworkId;
        this.workRoot = workRoot.toAbsolutePath().normalize(); // docker -v and the cluster need it whole
        this.pidsPerCpu = pidsPerCpu;
    }

    public Path workspace(String jobId) {
        return workRoot.resolve("jobs").resolve(jobId);
    }

    /** Where the adapter finds the mark of an attempt the kernel killed for its memory. */
    public Path oomMarker(String jobId, String attemptId) {
        return workspace(jobId).resolve(".flash").resolve("oom").resolve(attemptId);
    }

    /** The exit status the job script writes when its container ends: the truth once the cluster has forgotten the job. */
    public Path exitFile(String jobId, String attemptId) {
        return workspace(jobId).resolve(".flash").resolve("exit").resolve(attemptId);
    }

    /** What the attempt's container used, "peak-memory-bytes cpu-nanoseconds", written by the job script as it ends. */
    public Path usageFile(String jobId, String attemptId) {
        return workspace(jobId).resolve(".flash").resolve("usage").resolve(attemptId);
    }

    /**
     * The cgroup the attempt's container is started under ({@code docker run --cgroup-parent}). A
     * parent outlives its container and keeps its peak memory and cpu time (the container's own
     * cgroup vanishes with it), so the script reads the container's true use after it ends. A
     * top-level slice name without dashes is one directory under either cgroup driver.
     */
    static String cgroupParent(String attemptId) {
        return "flash_" + attemptId.replaceAll("[^A-Za-z0-9]", "_") + ".slice";
    }

    /**
     * Where a job script says it has ended, once its exit status is written: one directory for the
     * whole framework, named after the cluster job, so the cluster worker learns of every end from
     * one listing instead of waiting for its next look.
     */
    public Path endedMarks() {
        return workRoot.resolve(".flash").resolve("ended");
    }

    /**
     * The mark a job script leaves as it starts, holding its job's id as the adapter lists it
     * (Slurm's 123 or array element 123_4, Grid Engine's 123 or 123.5): a job that ran and ended
     * while no worker held its report is found by it once the cluster has forgotten the job.
     */
    public Path startedMark(String jobId, String attemptId) {
        return workspace(jobId).resolve(".flash").resolve("ran").resolve(attemptId);
    }

    /** The mark of an attempt the job script ended at the task's timeout. */
    public Path timeoutMarker(String jobId, String attemptId) {
        return workspace(jobId).resolve(".flash").resolve("timeout").resolve(attemptId);
    }

    /**
     * The cluster's own time limit: a backstop a minute past the task's timeout, which the job
     * script enforces to the second (Slurm counts limits in minutes and checks them every 30 s).
     */
    public static Long clusterTimeLimitSeconds(Long taskTimeoutSeconds) {
        return taskTimeoutSeconds == null ? null : taskTimeoutSeconds + 60;
    }

    /** Where an array element's script is written for the array's own script to run (Slurm reads an array's one script). */
    public Path scriptFile(String jobId, String attemptId) {
        return workspace(jobId).resolve(".flash").resolve("scripts").resolve(attemptId + ".sh");
    }

    public Path outputFile(String jobId, String attemptId) {
        return workspace(jobId).resolve(".flash").resolve("logs").resolve(attemptId + ".log");
    }

    /** The attempt's container as fields, with the same variables the script gives it (for Kubernetes). */
    public Cluster.Container container(TaskReady ready) {
        TaskDefinition task = ready.getTask();
        Map<String, String> env = new LinkedHashMap<>(task.getEnv());
        env.putAll(Map.of("FLASH_JOB_ID", ready.getJobId(), "FLASH_TASK_ID", ready.getTaskId(), "FLASH_ATTEMPT_ID", ready.getAttemptId(),
                "FLASH_WORKSPACE", "/workspace", "FLASH_FRAMEWORK_ID", frameworkId));
        return new Cluster.Container(ready.getJobId(), task.getImage(), List.copyOf(task.getCommand()), env,
                task.getWorkdir() != null ? task.getWorkdir() : "/workspace", task.getNetwork() == NetworkMode.BRIDGE,
                task.getSpotAllowed(), task.getTimeoutSeconds(), workRoot.relativize(workspace(ready.getJobId())).toString());
    }

    /** @param jobName the cluster job's name, for its ended mark */
    public String script(TaskReady ready, String jobName) {
        TaskDefinition task = ready.getTask();
        String container = "flash-" + ready.getAttemptId().replaceAll("[^A-Za-z0-9_.-]", "_");
        Path workspace = workspace(ready.getJobId());
        double cpu = task.getResources().getCpu();
        long pids = Math.max(256L, (long) Math.ceil(cpu * pidsPerCpu));
        String cgroup = cgroupParent(ready.getAttemptId());
        List<String> run = new ArrayList<>(List.of("--cgroup-parent", cgroup,
                "--user", "65534:65534", "--read-only",
                "--tmpfs", "/tmp", "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
                "--network", task.getNetwork() == NetworkMode.BRIDGE ? "bridge" : "none",
                "--pids-limit", Long.toString(pids), "--memory", Long.toString(task.getResources().getMemoryBytes()),
                "--memory-swap", Long.toString(task.getResources().getMemoryBytes()), "--cpus", Double.toString(cpu),
                "-v", workspace + ":/workspace", "-w", task.getWorkdir() != null ? task.getWorkdir() : "/workspace"));
        for (Map.Entry<String, String> e : task.getEnv().entrySet()) run.addAll(List.of("-e", e.getKey() + "=" + e.getValue()));
        // The executor's variables, so a task reads the same wherever it runs.
        run.addAll(List.of("-e", "FLASH_JOB_ID=" + ready.getJobId(), "-e", "FLASH_TASK_ID=" + ready.getTaskId(),
                "-e", "FLASH_ATTEMPT_ID=" + ready.getAttemptId(), "-e", "FLASH_WORKSPACE=/workspace",
                "-e", "FLASH_FRAMEWORK_ID=" + frameworkId, "-e", "FLASH_NODE_ID")); // exported by the script
        run.add(task.getImage());
        run.addAll(task.getCommand());
        Path marker = oomMarker(ready.getJobId(), ready.getAttemptId());
        Path exit = exitFile(ready.getJobId(), ready.getAttemptId());
        Path timedOut = timeoutMarker(ready.getJobId(), ready.getAttemptId());
        Path usage = usageFile(ready.getJobId(), ready.getAttemptId());
        Path ran = startedMark(ready.getJobId(), ready.getAttemptId());
        Long timeout = task.getTimeoutSeconds();
        // The watchdog sleeps in the background so that the trap can end it when the container ends first.
        String watchdog = timeout == null ? "" : "( trap 'kill $s 2>/dev/null; exit 0' TERM; sleep " + timeout + " & s=$!; wait $s; touch "
                + quote(timedOut.toString()) + "; docker kill \"$c\" >/dev/null 2>&1 ) &\nwatchdog=$!\n";
        return "#!/bin/sh\n"
                + "# Flash attempt " + ready.getAttemptId() + " of job " + ready.getJobId() + "\n"
                + "mkdir -p " + quote(workspace.toString()) + " " + quote(marker.getParent().toString()) + " "
                + quote(exit.getParent().toString()) + " " + quote(timedOut.getParent().toString()) + " "
                + quote(usage.getParent().toString()) + " " + quote(ran.getParent().toString()) + " " + quote(endedMarks().toString()) + "\n"
                + "chmod 0777 " + quote(workspace.toString()) + "\n"
                // Named by the cluster's job too: a requeued job (same id) removes its own earlier run's container below,
                // while a second job under the attempt's name (a submission repeated by a worker that died mid-call)
                // cannot touch the first one's; the shard cancels the second.
                + "c=" + container + "-\"${SLURM_JOB_ID:-${JOB_ID:-run}}\"\n"
                + JOB_ID
                // A container under this name can only be left by an earlier run of this job (requeued): the mark is
                // tested without a process, the removal is a docker call, paid on a rerun only.
                + "if [ -e " + quote(ran.toString()) + " ]; then docker rm -f \"$c\" >/dev/null 2>&1; fi\n"
                + "echo \"$cluster_job\" > " + quote(ran.toString()) + "\n"
                + "export FLASH_NODE_ID=\"$(hostname)\"\n"
                // Stopping the job stops its container, which is the engine's child, not the job's: Slurm's scancel
                // sends TERM first, Grid Engine's qdel a USR2 (qsub -notify) before its KILL.
                + "trap 'docker kill \"$c\" >/dev/null 2>&1' TERM INT USR2\n"
                + "docker run --name \"$c\" " + String.join(" ", run.stream().map(JobScripts::quote).toList()) + " &\n"
                + "task=$!\n"
                + watchdog
                + "wait $task; rc=$?\n"
                + (timeout == null ? "" : "kill $watchdog 2>/dev/null\n")
                // An OOM kill is the kernel's word where the node lets the job read its log (the engine's flag misses a kill
                // in the container's first milliseconds for good, docs/architecture.md), else the engine's, asked again
                // for a SIGKILLed exit since it can answer before it records one.
                // Only for a failure: an exit 0 is a success whatever else happened (the shard reads the mark only on a
                // failure), and each docker call is a CLI start and an engine call on a node busy with many short tasks.
                + "if [ $rc != 0 ]; then\n"
                + "  cid=\"$(docker inspect -f '{{.Id}}' \"$c\" 2>/dev/null)\"\n"
                + "  if [ -n \"$cid\" ] && dmesg 2>/dev/null | grep -q \"oom-kill:.*task_memcg=[^,]*$cid\"; then\n"
                + "    touch " + quote(marker.toString()) + "\n"
                + "  else\n"
                + "    for i in 1 2 3 4 5 6; do\n"
                + "      [ \"$(docker inspect -f '{{.State.OOMKilled}}' \"$c\" 2>/dev/null)\" = true ] && { touch " + quote(marker.toString()) + "; break; }\n"
                + "      [ $rc = 137 ] || break; sleep 0.1\n"
                + "    done\n"
                + "  fi\n"
                + "fi\n"
                + "docker rm -f \"$c\" >/dev/null 2>&1\n"
                + usage(cgroup, usage)
                + "echo $rc > " + quote(exit.toString()) + "\n"
                + ": > " + quote(endedMarks().resolve(jobName).toString()) + "\n"
                + "exit $rc\n";
    }

    /**
     * Reads the container's peak memory and cpu time from its parent cgroup (v1: the memory and
     * cpuacct hierarchies; v2: the unified one) into the usage file, then removes the parent. Before
     * the exit status: the adapter reads both once the exit status is there.
     */
    private static String usage(String cgroup, Path file) {
        // A relative parent lands under the daemon's own cgroup in each hierarchy, which may differ
        // between hierarchies (a daemon confined in memory only): found by name, not by a fixed path.
        return "g=/sys/fs/cgroup; peak=; acct=; usec=\n"
                + "dirs=$(find $g -maxdepth 5 -type d -name " + cgroup + " 2>/dev/null)\n"
                + "for d in $dirs; do\n"
                + "  [ -r $d/memory.max_usage_in_bytes ] && peak=$(cat $d/memory.max_usage_in_bytes)\n"
                + "  [ -r $d/memory.peak ] && peak=$(cat $d/memory.peak)\n"
                + "  [ -r $d/cpuacct.usage ] && acct=$(cat $d/cpuacct.usage)\n"
                + "  [ -r $d/memory.peak ] && usec=$(sed -n 's/^usage_usec //p' $d/cpu.stat)\n"
                + "done\n"
                + "[ -z \"$acct\" ] && [ -n \"$usec\" ] && acct=$((usec * 1000))\n"
                + "[ -n \"$peak\" ] && echo \"$peak ${acct:-0}\" > " + quote(file.toString()) + "\n"
                + "for d in $dirs; do rmdir $d 2>/dev/null; done\n";
    }

    /** The job's id as the adapter lists it, into $cluster_job: an array element's by its array's id and index (123_4, 123.5). */
    private static final String JOB_ID = "if [ -n \"$SLURM_ARRAY_JOB_ID\" ]; then cluster_job=\"${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}\"\n"
            + "elif [ -n \"$SLURM_JOB_ID\" ]; then cluster_job=\"$SLURM_JOB_ID\"\n"
            + "elif [ -n \"$SGE_TASK_ID\" ] && [ \"$SGE_TASK_ID\" != undefined ]; then cluster_job=\"$JOB_ID.$SGE_TASK_ID\"\n"
            + "else cluster_job=\"$JOB_ID\"; fi\n";

    /** One word for sh: single quotes, with any single quote closed, escaped and reopened. */
    static String quote(String word) {
        return "'" + word.replace("'", "'\\''") + "'";
    }
}
