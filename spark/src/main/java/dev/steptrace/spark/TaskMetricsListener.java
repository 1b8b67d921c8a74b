package dev.steptrace.spark;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.spark.executor.TaskMetrics;
import org.apache.spark.scheduler.AccumulableInfo;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobEnd;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.SparkListenerStageSubmitted;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.TaskInfo;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Spark's own record of the tasks of one job (the rank-local stage, docs/spark.md "Tasks"): for each task, the
 * executor and host it ran on, its times as Spark measured them, and the traces it was given (the task's
 * update of a named accumulator). The job is told apart by its job group; Spark posts its events
 * asynchronously, so {@link #await} waits for the job's end to be delivered.
 */
final class TaskMetricsListener extends SparkListener {
    /** Spark's property naming a job's group ({@code SparkContext.setJobGroup}). */
    private static final String JOB_GROUP = "spark.jobGroup.id";

    private final String group;
    private final long tracesAccumulator;
    private final Set<Integer> stages = ConcurrentHashMap.newKeySet();
    private final Set<Integer> jobs = ConcurrentHashMap.newKeySet();
    private final Queue<TaskRun> tasks = new ConcurrentLinkedQueue<>();
    private final CountDownLatch ended = new CountDownLatch(1);

    /**
     * @param group             the job group of the job to record
     * @param tracesAccumulator the id of the accumulator each task adds its traces to
     */
    TaskMetricsListener(String group, long tracesAccumulator) {
        this.group = group;
        this.tracesAccumulator = tracesAccumulator;
    }

    @Override
    public void onJobStart(SparkListenerJobStart e) {
        if (ours(e.properties())) {
            jobs.add(e.jobId());
        }
    }

    @Override
    public void onStageSubmitted(SparkListenerStageSubmitted e) {
        if (ours(e.properties())) {
            stages.add(e.stageInfo().stageId());
        }
    }

    @Override
    public void onTaskEnd(SparkListenerTaskEnd e) {
        if (!stages.contains(e.stageId())) {
            return;
        }
        TaskInfo info = e.taskInfo();
        long traces = 0;
        for (AccumulableInfo a : CollectionConverters.asJava(info.accumulables())) {
            if (a.id() == tracesAccumulator && a.update().isDefined()) {
                traces = ((Number) a.update().get()).longValue();
            }
        }
        TaskMetrics m = e.taskMetrics();
        tasks.add(new TaskRun(info.index(), info.attemptNumber(), info.executorId(), info.host(), info.successful(), traces,
                info.launchTime(), info.duration() / 1e3, m == null ? 0 : m.executorRunTime() / 1e3,
                m == null ? 0 : m.executorCpuTime() / 1e9));
    }

    @Override
    public void onJobEnd(SparkListenerJobEnd e) {
        if (jobs.contains(e.jobId())) {
            ended.countDown();
        }
    }

    /** The job's tasks by partition and attempt, once Spark has delivered the job's end (or a minute passed). */
    List<TaskRun> await() throws InterruptedException {
        ended.await(1, TimeUnit.MINUTES);
        List<TaskRun> out = new ArrayList<>(tasks);
        out.sort(Comparator.comparingInt(TaskRun::partition).thenComparingInt(TaskRun::attempt));
        return out;
    }

    private boolean ours(Properties p) {
        return p != null && group.equals(p.getProperty(JOB_GROUP));
    }
}
