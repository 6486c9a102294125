package io.flash.executor.docker;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class KernelOomLogTest {

    // ids no engine made: killedIn also asks this machine's own kernel log
    private static final String ID = "0123456789abcdef".repeat(4);
    private static final String OTHER = "fedcba9876543210".repeat(4);

    @Test
    void aKillRecordNamesTheContainerWhoseCgroupItWasIn() throws IOException {
        Path log = Files.createTempFile("kmsg", ".log");
        try (KernelOomLog oom = KernelOomLog.open(log)) {
            // as /dev/kmsg gives it (prio,seq,usec,flags;text) and as dmesg --raw prints it
            oom.note("6,1234,20836778650,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=" + OTHER
                    + ",mems_allowed=0,oom_memcg=/docker/" + ID + ",task_memcg=/docker/" + ID + ",task=dd,pid=8998,uid=65534");
            oom.note("<6>[20837.1] oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,"
                    + "oom_memcg=/system.slice/docker-" + OTHER + ".scope,task_memcg=/system.slice/docker-" + OTHER + ".scope,task=java,pid=1,uid=0");
            assertTrue(oom.killedIn(ID), "cgroupfs driver");
            assertTrue(oom.killedIn(OTHER), "systemd driver, cgroup v2");
        } finally {
            Files.delete(log);
        }
    }

    @Test
    void otherKernelWordsAboutAContainerAreNotAKill() throws IOException {
        Path log = Files.createTempFile("kmsg", ".log");
        try (KernelOomLog oom = KernelOomLog.open(log)) {
            oom.note("6,1,1,-;Memory cgroup stats for /docker/" + ID + ":");
            oom.note("6,2,2,-;docker0: port 1(veth" + ID.substring(0, 7) + ") entered disabled state");
            oom.note("6,3,3,-;oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,task_memcg=/,task=x,pid=2,uid=0");
            assertFalse(oom.killedIn(ID));
        } finally {
            Files.delete(log);
        }
    }

    @Test
    void aLogThatCannotBeReadKnowsNothing() {
        try (KernelOomLog oom = KernelOomLog.open(Path.of("/nonexistent/kmsg"))) {
            assertFalse(oom.available());
            assertFalse(oom.killedIn(ID));
        }
    }
}
