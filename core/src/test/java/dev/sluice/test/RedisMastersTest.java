package dev.sluice.test;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** The Redlock masters fixture, driven through its lifecycle as JUnit does. */
class RedisMastersTest {

    @Test
    void aSecondRunInTheSameJvmStartsFreshMastersAndEachRunLeavesNoProcessBehind() {
        RedisMasters masters = RedisMasters.of(3);
        Set<Long> everyPid = new HashSet<>();
        for (int run = 0; run < 2; run++) {
            masters.beforeAll(null);
            masters.beforeEach(null);
            masters.processes().get(1).kill(); // a test killing a master, as RedlockTest does
            masters.beforeEach(null);
            List<Long> pids = masters.processes().stream().map(RedisProcess::pid).toList();
            assertThat(masters.running()).as("run %d", run).isEqualTo(3);
            everyPid.addAll(pids);

            masters.afterAll(null);

            assertThat(pids.stream().filter(pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
                    .collect(Collectors.toList())).as("processes alive after run %d", run).isEmpty();
        }
        assertThat(everyPid).as("two runs, three masters each, one restarted per run").hasSize(6);
    }
}
