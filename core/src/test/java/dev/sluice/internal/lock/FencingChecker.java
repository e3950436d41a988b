package dev.sluice.internal.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The "storage service" of Kleppmann's fencing argument, and the observer of a Jepsen-style test: holders of locks
 * and permits report to it what they do, and it keeps, per key,
 *
 * <ul>
 *   <li>a <em>fenced</em> counter: every read and write carries the holder's fencing token, and an operation with a
 *       token lower than the highest seen for the key is refused;</li>
 *   <li>a <em>plain</em> counter: read and written without a token, guarded only by the lock, the way a
 *       {@code @Locked} method uses a resource that knows nothing of tokens;</li>
 *   <li>who is inside the critical section, to see overlaps (two holders of a lock, more than N of a semaphore).</li>
 * </ul>
 *
 * <p>A session is one acquisition: {@link #begin} before asking for the lock (so the checker knows, in real time,
 * what had already ended), {@link #enter} once granted, {@link #exit} when leaving the section, then {@link #report}
 * what the handle said afterwards (whether it still believed it held the lease, whether {@code close()} threw
 * {@code LockLostException}). {@link #dataLoss} marks the sessions in flight when Redis lost data (a fail-over
 * without the latest writes): their lease could vanish without any fault of the lock.
 *
 * <p>Thread-safe (one monitor; {@link #hold} waits outside it).
 */
final class FencingChecker {

    enum Kind { LOCK, PERMIT }

    /** One acquisition, from begin to report. */
    static final class Session {
        final String id;
        final Kind kind;
        final String key;
        final long maxExitedTokenAtBegin;
        final long begunSeq;
        long token;
        long enteredSeq = -1;
        long exitedSeq = -1;
        boolean reported;
        boolean heldAfterExit;
        boolean lostOnClose;
        boolean exposedToDataLoss;
        long readValue = Long.MIN_VALUE;
        long firstAccepted = -1;
        long lastAccepted = -1;
        int refused;

        Session(String id, Kind kind, String key, long maxExitedTokenAtBegin, long begunSeq) {
            this.id = id;
            this.kind = kind;
            this.key = key;
            this.maxExitedTokenAtBegin = maxExitedTokenAtBegin;
            this.begunSeq = begunSeq;
        }

        /** Whether the lock told this holder that its lease was gone. */
        boolean told() {
            return reported && (!heldAfterExit || lostOnClose);
        }

        /** Whether the lock may have lost this holder's lease without being at fault: told, or Redis lost data. */
        boolean excused() {
            return told() || exposedToDataLoss;
        }

        @Override
        public String toString() {
            return id + "(" + key + ", token " + token + (reported ? (told() ? ", told" : ", NOT told") : ", no report")
                    + (exposedToDataLoss ? ", data lost" : "") + (refused > 0 ? ", refused " + refused : "") + ")";
        }
    }

    private static final class KeyState {
        long fenceMax = Long.MIN_VALUE;
        long fencedValue;
        long fencedAccepted;
        long plainValue;
        long plainWrites;
        long maxExitedToken = Long.MIN_VALUE;
        final Map<String, Session> inside = new LinkedHashMap<>();
    }

    private final Map<String, Integer> permits;
    private final Map<String, KeyState> keys = new HashMap<>();
    private final Map<String, Session> sessions = new HashMap<>();
    private final List<Session[]> overlaps = new ArrayList<>();
    private final List<List<Session>> aboveN = new ArrayList<>();
    private final List<String> tokenOrderViolations = new ArrayList<>();
    private final Map<String, Long> faults = new LinkedHashMap<>();
    private final Map<Kind, Long> acquisitions = new HashMap<>();
    private long seq;
    private long refusedOps;
    private long fencedLostUpdates;
    private int maxPermitHolders;

    private Trap trap;
    private String currentFault = "none yet";
    private final Map<String, Long> overlapsByFault = new LinkedHashMap<>();
    private final Map<String, Long> aboveNByFault = new LinkedHashMap<>();

    /** @param permits the number of permits of each semaphore name the workers use */
    FencingChecker(Map<String, Integer> permits) {
        this.permits = Map.copyOf(permits);
    }

    // ------------------------------------------------------------------------------------------ sessions

    synchronized void begin(String id, Kind kind, String key) {
        sessions.put(id, new Session(id, kind, key, state(key).maxExitedToken, ++seq));
    }

    /** The acquisition failed: forget the session. */
    synchronized void abort(String id) {
        sessions.remove(id);
    }

    synchronized void enter(String id, long token) {
        Session s = session(id);
        KeyState k = state(s.key);
        s.token = token;
        s.enteredSeq = ++seq;
        acquisitions.merge(s.kind, 1L, Long::sum);
        if (s.kind == Kind.LOCK) {
            if (token <= s.maxExitedTokenAtBegin) {
                tokenOrderViolations.add(s.id + " on " + s.key + " got token " + token + ", not above "
                        + s.maxExitedTokenAtBegin + " of a holder that had left before it asked");
            }
            for (Session other : k.inside.values()) {
                overlaps.add(new Session[] {other, s});
                overlapsByFault.merge(currentFault, 1L, Long::sum);
            }
        }
        k.inside.put(id, s);
        if (s.kind == Kind.PERMIT) {
            maxPermitHolders = Math.max(maxPermitHolders, k.inside.size());
            if (k.inside.size() > permits.getOrDefault(s.key, Integer.MAX_VALUE)) {
                aboveN.add(new ArrayList<>(k.inside.values()));
                aboveNByFault.merge(currentFault, 1L, Long::sum);
            }
        }
    }

    synchronized void exit(String id) {
        Session s = session(id);
        KeyState k = state(s.key);
        k.inside.remove(id);
        s.exitedSeq = ++seq;
        if (s.kind == Kind.LOCK) {
            k.maxExitedToken = Math.max(k.maxExitedToken, s.token);
        }
    }

    /** What the handle said after the section: whether it still believed it held, and whether close() threw. */
    synchronized void report(String id, boolean heldAfterExit, boolean lostOnClose) {
        Session s = session(id);
        s.reported = true;
        s.heldAfterExit = heldAfterExit;
        s.lostOnClose = lostOnClose;
    }

    // ------------------------------------------------------------------------------------------ the storage

    synchronized long plainRead(String id) {
        return state(session(id).key).plainValue;
    }

    synchronized void plainWrite(String id, long value) {
        KeyState k = state(session(id).key);
        k.plainValue = value;
        k.plainWrites++;
    }

    /** The fenced counter's value, or empty when the session's token is below the highest seen (refused). */
    synchronized Optional<Long> fencedRead(String id) {
        Session s = session(id);
        KeyState k = state(s.key);
        if (!admit(s, k)) {
            return Optional.empty();
        }
        s.readValue = k.fencedValue;
        return Optional.of(k.fencedValue);
    }

    /** Writes the fenced counter; false when refused by the token. */
    synchronized boolean fencedWrite(String id, long value) {
        Session s = session(id);
        KeyState k = state(s.key);
        if (!admit(s, k)) {
            return false;
        }
        if (k.fencedValue != s.readValue) {
            fencedLostUpdates++; // another write was accepted between this holder's read and its write
        }
        k.fencedValue = value;
        k.fencedAccepted++;
        return true;
    }

    private boolean admit(Session s, KeyState k) {
        if (s.token < k.fenceMax) {
            s.refused++;
            refusedOps++;
            return false;
        }
        k.fenceMax = s.token;
        long now = ++seq;
        if (s.firstAccepted < 0) {
            s.firstAccepted = now;
        }
        s.lastAccepted = now;
        return true;
    }

    // ------------------------------------------------------------------------------------------ the trap

    /**
     * A holder frozen at a chosen moment, so that a test can make the lock change hands under it: the first holder of
     * the key, on a node whose sessions start with the prefix, that calls {@link #hold} having begun after the trap
     * was armed stays in its section until {@link #release()}.
     */
    final class Trap {
        private final String key;
        private final String nodePrefix;
        private final long notBeforeSeq;
        private final CountDownLatch sprung = new CountDownLatch(1);
        private final CountDownLatch released = new CountDownLatch(1);
        private Session caught;

        private Trap(String key, String nodePrefix, long notBeforeSeq) {
            this.key = key;
            this.nodePrefix = nodePrefix;
            this.notBeforeSeq = notBeforeSeq;
        }

        /** The caught holder, waiting at most {@code timeout} for one. */
        Session awaitCaught(Duration timeout) throws InterruptedException {
            if (!sprung.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("no holder of '" + key + "' on node " + nodePrefix
                        + " entered its section within " + timeout);
            }
            synchronized (FencingChecker.this) {
                return caught;
            }
        }

        void release() {
            released.countDown();
        }
    }

    /** Arms a trap for the next holder of {@code key} on node {@code nodePrefix} (releasing any earlier trap). */
    synchronized Trap armTrap(String key, String nodePrefix) {
        if (trap != null) {
            trap.release();
        }
        trap = new Trap(key, nodePrefix + "-", ++seq);
        return trap;
    }

    /** Called by a holder inside its section: returns at once unless a trap catches it. */
    void hold(String id) throws InterruptedException {
        Trap caughtBy;
        synchronized (this) {
            Session s = session(id);
            caughtBy = trap;
            if (caughtBy == null || caughtBy.caught != null || !caughtBy.key.equals(s.key)
                    || !s.id.startsWith(caughtBy.nodePrefix) || s.begunSeq < caughtBy.notBeforeSeq) {
                return;
            }
            caughtBy.caught = s;
            caughtBy.sprung.countDown();
        }
        caughtBy.released.await();
    }

    /** Releases the armed trap, if any. */
    synchronized void releaseTrap() {
        if (trap != null) {
            trap.release();
        }
    }

    /** Whether {@code session} has reported what its handle said after the section. */
    synchronized boolean reported(Session session) {
        return session.reported;
    }

    /** Whether a holder of {@code key} with a token above {@code token} has done a fenced write and left. */
    synchronized boolean newerHolderWroteAndLeft(String key, long token) {
        return sessions.values().stream().anyMatch(s -> s.key.equals(key) && s.token > token && s.exitedSeq >= 0
                && s.lastAccepted >= 0);
    }

    // ------------------------------------------------------------------------------------------ faults

    /** Counts a fault; overlaps beginning from now on are attributed to it. */
    synchronized void fault(String kind) {
        faults.merge(kind, 1L, Long::sum);
        currentFault = kind;
    }

    /** Redis lost writes (a fail-over without them): every session not yet out of its section may lose its lease. */
    synchronized void dataLoss() {
        for (Session s : sessions.values()) {
            if (s.exitedSeq < 0) {
                s.exposedToDataLoss = true;
            }
        }
    }

    // ------------------------------------------------------------------------------------------ results

    synchronized Counts counts() {
        Counts c = new Counts();
        c.lockAcquisitions = acquisitions.getOrDefault(Kind.LOCK, 0L);
        c.permitAcquisitions = acquisitions.getOrDefault(Kind.PERMIT, 0L);
        c.faults = new LinkedHashMap<>(faults);
        c.overlaps = overlaps.size();
        c.overlapsByFault = new LinkedHashMap<>(overlapsByFault);
        Set<Session> silentHolders = new HashSet<>();
        for (Session[] pair : overlaps) {
            Session stale = pair[0].token <= pair[1].token ? pair[0] : pair[1];
            Session newer = stale == pair[0] ? pair[1] : pair[0];
            if (stale.refused > 0) {
                c.overlapsStaleRefused++;
            }
            if (stale.told()) {
                c.overlapsStaleTold++;
            }
            if (stale.exposedToDataLoss) {
                c.overlapsAfterDataLoss++;
            }
            boolean interleaved = stale.firstAccepted >= 0 && newer.firstAccepted >= 0
                    && stale.firstAccepted <= newer.lastAccepted && newer.firstAccepted <= stale.lastAccepted;
            if (stale.token == newer.token || interleaved) {
                c.unfenced.add(stale + " and " + newer);
            }
            if (!stale.excused() && silentHolders.add(stale)) {
                c.silent.add(stale + " overlapped by " + newer);
            }
        }
        c.refusedOps = refusedOps;
        c.tokenOrderViolations = List.copyOf(tokenOrderViolations);
        c.maxPermitHolders = maxPermitHolders;
        c.aboveN = aboveN.size();
        c.aboveNByFault = new LinkedHashMap<>(aboveNByFault);
        for (List<Session> event : aboveN) {
            long unexcused = event.stream().filter(s -> !s.excused()).count();
            if (unexcused > permits.getOrDefault(event.get(0).key, Integer.MAX_VALUE)) {
                c.aboveNUnexcused.add(event.toString());
            }
        }
        for (Map.Entry<String, KeyState> e : keys.entrySet()) {
            KeyState k = e.getValue();
            c.plainLostUpdates += k.plainWrites - k.plainValue;
            c.fencedAccepted += k.fencedAccepted;
            c.fencedLostUpdates += k.fencedAccepted - k.fencedValue;
        }
        c.fencedLostUpdates = Math.max(c.fencedLostUpdates, fencedLostUpdates);
        return c;
    }

    /** What the checker counted. */
    static final class Counts {
        long lockAcquisitions;
        long permitAcquisitions;
        Map<String, Long> faults;
        long overlaps;
        Map<String, Long> overlapsByFault;
        long overlapsStaleRefused;
        long overlapsStaleTold;
        long overlapsAfterDataLoss;
        final List<String> unfenced = new ArrayList<>();
        final List<String> silent = new ArrayList<>();
        long refusedOps;
        List<String> tokenOrderViolations;
        int maxPermitHolders;
        long aboveN;
        Map<String, Long> aboveNByFault;
        final List<String> aboveNUnexcused = new ArrayList<>();
        long plainLostUpdates;
        long fencedAccepted;
        long fencedLostUpdates;
    }

    private Session session(String id) {
        Session s = sessions.get(id);
        if (s == null) {
            throw new IllegalStateException("no session " + id);
        }
        return s;
    }

    private KeyState state(String key) {
        return keys.computeIfAbsent(key, k -> new KeyState());
    }
}
