package dev.sluice.internal.lock;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The bookkeeping of threads of one JVM waiting for permits of one semaphore, step by step on one thread. */
class PermitGateTest {

    private final PermitGate gate = new PermitGate();

    private static PermitGate.Turn turn(String id) {
        return new PermitGate.Turn(Thread.currentThread(), id, 1, 1_000);
    }

    @Test
    void callersTryTheStoreAtOnceUntilOneIsRefusedThenQueueBehindIt() {
        PermitGate.Turn first = turn("first");
        PermitGate.Turn second = turn("second");
        assertThat(gate.arrive(first)).isTrue();
        assertThat(gate.arrive(second)).isTrue(); // nobody waits yet: both try side by side
        assertThat(first.state).isEqualTo(PermitGate.Turn.ATTEMPTING);

        assertThat(gate.refused(first)).isTrue();
        assertThat(first.state).isEqualTo(PermitGate.Turn.IDLE);
        PermitGate.Turn third = turn("third");
        assertThat(gate.arrive(third)).isFalse();
        assertThat(third.state).isEqualTo(PermitGate.Turn.WAITING);
        assertThat(gate.refused(second)).isFalse(); // another contends: queued again, first in line
        assertThat(gate.waiting()).isEqualTo(3);
        assertThat(gate.claimNext()).isSameAs(first);
        assertThat(gate.claimNext()).isSameAs(second);
        assertThat(gate.claimNext()).isSameAs(third);
        assertThat(gate.claimNext()).isNull();
    }

    @Test
    void aReturningHolderLeavesItsPermitToTheContenderWhileItsStoreCallIsUnderWay() {
        PermitGate.Turn contender = turn("contender");
        PermitGate.Turn queued = turn("queued");
        gate.arrive(contender);
        gate.refused(contender);
        gate.arrive(queued);

        // The contender arrived first: handing the permit to the thread queued behind it would serve a later
        // arrival first. The holder returns it plainly; the contender's attempt, or its next one once the return
        // is signalled, takes it.
        assertThat(contender.resume()).isTrue();
        assertThat(gate.claimNext()).isNull();
        assertThat(queued.state).isEqualTo(PermitGate.Turn.WAITING);
        assertThat(gate.waiting()).isEqualTo(2);
    }

    @Test
    void aClaimedContenderCannotResumeAndIsResolvedOnceByTheHolder() {
        PermitGate.Turn contender = turn("contender");
        gate.arrive(contender);
        gate.refused(contender);
        assertThat(gate.claimNext()).isSameAs(contender);

        assertThat(contender.resume()).isFalse();
        contender.grant(42);
        contender.contend(); // the holder's finally: no effect once granted
        assertThat(contender.state).isEqualTo(PermitGate.Turn.GRANTED);
        assertThat(contender.grantedAtNanos).isEqualTo(42);
    }

    @Test
    void whenTheContenderLeavesTheFirstQueuedThreadContendsFromWhereItsAttemptsLeftOff() {
        PermitGate.Turn contender = turn("contender");
        PermitGate.Turn next = turn("next");
        PermitGate.Turn last = turn("last");
        gate.arrive(contender);
        contender.releasesSeen = 7;
        gate.refused(contender);
        gate.arrive(next);
        gate.arrive(last);

        gate.depart(contender);

        assertThat(next.state).isEqualTo(PermitGate.Turn.IDLE);
        assertThat(next.releasesSeen).isEqualTo(7);
        assertThat(last.state).isEqualTo(PermitGate.Turn.WAITING);
        assertThat(gate.waiting()).isEqualTo(2);
        assertThat(gate.claimNext()).isSameAs(next);
        gate.depart(last); // not the contender: nothing changes
        assertThat(gate.waiting()).isEqualTo(2);
    }

    @Test
    void aQueuedThreadCancelsUnlessClaimedAndAClaimedOneIsNeverLeftUnresolved() {
        PermitGate.Turn contender = turn("contender");
        PermitGate.Turn leaving = turn("leaving");
        PermitGate.Turn claimed = turn("claimed");
        gate.arrive(contender);
        gate.refused(contender);
        gate.arrive(leaving);
        gate.arrive(claimed);
        assertThat(gate.claimNext()).isSameAs(contender); // one holder returns to the contender, another to the queue
        contender.grant(1);

        assertThat(gate.cancel(leaving)).isTrue();
        assertThat(leaving.state).isEqualTo(PermitGate.Turn.CANCELLED);
        assertThat(gate.claimNext()).isSameAs(claimed);
        assertThat(gate.cancel(claimed)).isFalse();
        claimed.contend();
        claimed.grant(1); // too late: it was sent to try the store
        assertThat(claimed.state).isEqualTo(PermitGate.Turn.CONTEND);
        gate.depart(contender);
        assertThat(gate.waiting()).isZero();
        assertThat(gate.arrive(turn("later"))).isTrue();
    }
}
