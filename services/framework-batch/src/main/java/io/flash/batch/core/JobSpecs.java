package io.flash.batch.core;

import io.flash.batch.cluster.ArrayNames;
import io.flash.batch.cluster.Cluster;
import io.flash.batch.cluster.JobScripts;
import io.flash.schema.ClusterCommand;
import io.flash.schema.TaskDefinition;
import io.flash.schema.TaskReady;

import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/** The cluster job of an attempt: its job script (or container), its size, its time limit and its partition. */
public final class JobSpecs implements ClusterWorker.Specs {

    private final JobScripts scripts;

    public JobSpecs(JobScripts scripts) {
        this.scripts = scripts;
    }

    @Override
    public Cluster.JobSpec spec(ClusterCommand submit) {
        TaskReady r = submit.getReady();
        TaskDefinition task = r.getTask();
        // A Slurm partition or a Grid Engine queue, named by the task's node labels.
        Map<String, String> labels = task.getNodeLabels() == null ? Map.of() : task.getNodeLabels();
        String partition = labels.getOrDefault("partition", labels.get("queue"));
        return new Cluster.JobSpec(submit.getJobName(), task.getResources().getCpu(), task.getResources().getMemoryBytes(),
                JobScripts.clusterTimeLimitSeconds(task.getTimeoutSeconds()), partition, scripts.script(r, submit.getJobName()),
                scripts.outputFile(r.getJobId(), r.getAttemptId()).toString(), scripts.container(r));
    }

    @Override
    public Cluster.ArraySpec array(String arrayName, List<ClusterCommand> submits) {
        SortedMap<Integer, Cluster.JobSpec> elements = new TreeMap<>();
        for (ClusterCommand submit : submits) elements.put(ArrayNames.indexOf(submit.getJobName()), spec(submit));
        TaskReady first = submits.get(0).getReady();
        String attempts = ArrayNames.pattern(first.getAttemptId()); // the elements are shards of one job's task
        return new Cluster.ArraySpec(arrayName, elements, scripts.scriptFile(first.getJobId(), attempts).toString(),
                scripts.outputFile(first.getJobId(), attempts).toString());
    }
}
