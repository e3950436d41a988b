package dev.sluice.internal.limit;

import dev.sluice.RateLimitDecision;
import dev.sluice.StoreUnavailableException;
import dev.sluice.internal.config.Bandwidth;
import dev.sluice.internal.config.FailureMode;
import dev.sluice.internal.config.PolicyConfig;
import dev.sluice.internal.config.PolicyMode;
import dev.sluice.internal.lease.Watchdog;
import dev.sluice.internal.metrics.RateLimitEvents;
import dev.sluice.internal.metrics.RateLimitEvents.Outcome;
import dev.sluice.internal.redis.CircuitBreaker;
import dev.sluice.internal.redis.KeyMaterial;
import dev.sluice.internal.redis.RedisFailures;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Turns "these policies, for these keys" into one store call and the store's outcomes into
 * {@link RateLimitDecision}s, and tells its {@link RateLimitEvents} listener what each policy made of each request
 * (the application's metrics count them; the {@link ShadowLog} hears of would-be refusals): every rate-limit
 * decision of an application passes here, from the filters and from the programmatic limiter alike, and so
 * through the application's {@link CircuitBreaker}. {@link #admit(List)} is the one rule both apply to a request
 * (every deciding policy admits it, else it is refused; when the store cannot be asked, {@code on-redis-failure}).
 * Stateless apart from its store, key prefix, breaker and listeners; thread-safe.
 */
public final class RateLimitEngine {

    /**
     * One policy applied to one request.
     *
     * @param policy the policy
     * @param rawKey the key material as derived from the request (escaped here, never used verbatim)
     * @param cost   tokens to take, {@code >= 1}
     * @param mode   how the policy takes part in the decision
     * @param permitId for a {@link ChargeMode#concurrency() concurrency} call, the id the request's permits are
     *                 held under (the same for every concurrency policy of one request); else null
     */
    public record LimitCall(PolicyConfig policy, String rawKey, long cost, ChargeMode mode, String permitId) {

        public LimitCall {
            if (mode.concurrency() != (permitId != null) || (mode.concurrency() && !policy.limitsConcurrency())) {
                throw new IllegalArgumentException(mode + " for policy " + policy.name() + ", permit id " + permitId);
            }
        }

        /** Shows the key only as a log line may ({@link LoggedKeys}): a message must not carry an API key. */
        @Override
        public String toString() {
            return "LimitCall[policy=" + policy.name() + ", key=" + LoggedKeys.of(policy.key().type(), rawKey)
                    + ", cost=" + cost + ", mode=" + mode + ", permitId=" + permitId + "]";
        }

        /** A rate call in {@code mode}. */
        public LimitCall(PolicyConfig policy, String rawKey, long cost, ChargeMode mode) {
            this(policy, rawKey, cost, mode, null);
        }

        /** The concurrency call of {@code policy}, in {@code mode}, for the request's {@code permitId}. */
        public static LimitCall concurrency(PolicyConfig policy, String rawKey, ChargeMode mode, String permitId) {
            return new LimitCall(policy, rawKey, 1, mode, permitId);
        }

        /** An {@link ChargeMode#ENFORCE enforced} call. */
        public LimitCall(PolicyConfig policy, String rawKey, long cost) {
            this(policy, rawKey, cost, ChargeMode.ENFORCE);
        }

        /**
         * The rate call of {@code policy} before a request whose response the caller will see: charged now when
         * the policy counts every request, else only checked (charged after the response, {@link ChargeMode#CHARGE});
         * refusing unless the policy is shadowed.
         */
        public static LimitCall beforeRequest(PolicyConfig policy, String rawKey) {
            boolean shadow = policy.mode() == PolicyMode.SHADOW;
            ChargeMode mode = policy.count().all() ? (shadow ? ChargeMode.SHADOW : ChargeMode.ENFORCE)
                    : (shadow ? ChargeMode.SHADOW_CHECK : ChargeMode.CHECK);
            return new LimitCall(policy, rawKey, policy.cost(), mode);
        }

        /**
         * The rate call of {@code policy} charged {@code cost} now, whatever its {@code count} (a caller that sees
         * no response); refusing unless the policy is shadowed.
         */
        public static LimitCall chargedNow(PolicyConfig policy, String rawKey, long cost) {
            return new LimitCall(policy, rawKey, cost,
                    policy.mode() == PolicyMode.SHADOW ? ChargeMode.SHADOW : ChargeMode.ENFORCE);
        }

        /** The concurrency call of {@code policy} for the request's {@code permitId}; never refusing if shadowed. */
        public static LimitCall concurrency(PolicyConfig policy, String rawKey, String permitId) {
            return concurrency(policy, rawKey, policy.mode() == PolicyMode.SHADOW ? ChargeMode.SHADOW_CONCURRENCY
                    : ChargeMode.CONCURRENCY, permitId);
        }
    }

    private final RateLimitStore store;
    private final String keyPrefix;
    private final CircuitBreaker breaker;
    private final DenyCache denials;
    private final Supplier<Watchdog> watchdog;
    private final RateLimitEvents events;
    private final LongSupplier nanoTime;
    private final LocalBudgets budgets;
    private final String nodeId = Long.toHexString(new SecureRandom().nextLong());
    private final AtomicLong permits = new AtomicLong();

    /**
     * @param breaker  the application's breaker, shared with its locks and semaphores
     * @param denials  the node's memory of refused buckets
     * @param watchdog renews the permits of requests in flight under concurrency limits; asked on the first such
     *                 permit
     * @param events   hears what each policy made of each request (the application's metrics)
     */
    public RateLimitEngine(RateLimitStore store, String keyPrefix, CircuitBreaker breaker, DenyCache denials,
                           Supplier<Watchdog> watchdog, RateLimitEvents events) {
        this(store, keyPrefix, breaker, denials, watchdog, events, System::nanoTime);
    }

    /** @param nanoTime the monotonic clock of the shadow log and of background returns of permits */
    RateLimitEngine(RateLimitStore store, String keyPrefix, CircuitBreaker breaker, DenyCache denials,
                    Supplier<Watchdog> watchdog, RateLimitEvents events, LongSupplier nanoTime) {
        this.store = store;
        this.keyPrefix = keyPrefix;
        this.breaker = breaker;
        this.denials = denials;
        this.watchdog = watchdog;
        this.events = events.and(new ShadowLog(nanoTime));
        this.nanoTime = nanoTime;
        this.budgets = new LocalBudgets(LocalBudgets.MAX_KEYS, nanoTime);
    }

    /** The Redis key of a policy's bucket for {@code rawKey}: {@code <prefix>:rl:{<policy>:<material>}}. */
    public String bucketKey(String policy, String rawKey) {
        return keyPrefix + ":rl:{" + policy + ':' + KeyMaterial.of(rawKey) + '}';
    }

    /**
     * The Redis key of a concurrency limit's permit set for {@code rawKey}:
     * {@code <prefix>:cc:{<policy>:<material>}}, a sorted set of permit ids scored by lease expiry.
     */
    public String permitKey(String policy, String rawKey) {
        return keyPrefix + ":cc:{" + policy + ':' + KeyMaterial.of(rawKey) + '}';
    }

    /** A permit id unique to one request: this engine's random node id and a counter. */
    public String newPermitId() {
        return nodeId + ':' + Long.toHexString(permits.incrementAndGet());
    }

    /**
     * Keeps the permits a request took (the admitted concurrency calls of {@link #decide(List)}): renewed every
     * third of their lease until {@link HeldPermits#release()}.
     *
     * @param calls the request's concurrency calls that took a permit, all with the same permit id
     */
    public HeldPermits hold(List<LimitCall> calls) {
        return HeldPermits.hold(this, calls, watchdog);
    }

    /**
     * Decides every call in one atomic store operation (one Redis round trip, per hash slot in Cluster).
     * The request is admitted only when every decision of a {@link ChargeMode#decides() deciding} call is
     * allowed; then those were charged. Each other call is charged as its {@link ChargeMode} says. While
     * the breaker is open the store is not asked and the call fails at once.
     *
     * <p>When a bucket of the request is still refused by an earlier answer ({@link DenyCache}), the store is
     * not asked either: the request is refused, nothing is charged, and only the refusing decisions are
     * returned (their wait counted down).
     *
     * <p>A call whose policy has a local budget ({@link LocalBudgets}) is paid from the tokens the node holds for its
     * key when they suffice, without the store: a request whose every call is paid so costs no Redis call (unless one
     * of them leaves its batch low and reserves the next one with a check that decides nothing). Tokens taken for a
     * request that is then refused (by the deny cache, the store, or when the store fails) are given back, except a
     * shadowed call's when the store refused the request, which the store would have charged too. A call the budget
     * cannot pay for goes to the store, and reserves the key's next batch there if no other thread of this node is
     * reserving one.
     *
     * @return one decision per call, in order; or, for a request refused locally, its refusing decisions
     * @throws StoreUnavailableException when the store cannot be reached, or the breaker skips it
     */
    public List<RateLimitDecision> decide(List<LimitCall> calls) {
        if (calls.isEmpty()) {
            return List.of();
        }
        int n = calls.size();
        String[] keys = new String[n];
        LocalBudgets.Taken[] taken = null;
        LocalBudgets.Reservation[] reservations = null;
        int paidLocally = 0;
        boolean refreshing = false;
        for (int i = 0; i < n; i++) {
            LimitCall call = calls.get(i);
            keys[i] = key(call);
            if (call.policy().hasLocalBudget() && !call.mode().concurrency() && call.mode() != ChargeMode.REFUND) {
                if (taken == null) {
                    taken = new LocalBudgets.Taken[n];
                    reservations = new LocalBudgets.Reservation[n];
                }
                LocalBudgets.Claim claim = budgets.claim(budgets.budget(keys[i], call.policy()), call.cost(),
                        call.mode());
                if (claim instanceof LocalBudgets.Taken t) {
                    taken[i] = t;
                    reservations[i] = t.refresh();
                    refreshing |= t.refresh() != null;
                    paidLocally++;
                } else {
                    reservations[i] = (LocalBudgets.Reservation) claim;
                }
            }
        }
        if (paidLocally == n) {
            List<RateLimitDecision> decisions = new ArrayList<>(n);
            for (LocalBudgets.Taken t : taken) {
                decisions.add(t.decision());
            }
            if (refreshing) {
                refresh(calls, keys, reservations);
            }
            report(calls, decisions, true, taken);
            return decisions;
        }
        try {
            List<RateLimitDecision> refusedLocally = refusedLocally(calls, keys, taken);
            if (refusedLocally != null) {
                giveBack(taken, false);
                return refusedLocally;
            }
            return decideInStore(calls, keys, taken, reservations);
        } finally {
            for (int i = 0; reservations != null && i < n; i++) {
                if (reservations[i] != null) {
                    reservations[i].failed(); // ends it if it has not been done
                }
            }
        }
    }

    /**
     * The calls not paid from a local budget, in one store call, with the checks of those paid that reserve their
     * next batch; the others' decisions in their places.
     */
    private List<RateLimitDecision> decideInStore(List<LimitCall> calls, String[] keys, LocalBudgets.Taken[] taken,
                                                  LocalBudgets.Reservation[] reservations) {
        int n = calls.size();
        List<BucketRequest> requests = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            LimitCall call = calls.get(i);
            boolean paid = taken != null && taken[i] != null;
            if (paid && reservations[i] == null) {
                continue;
            }
            if (call.mode().concurrency()) {
                requests.add(BucketRequest.permits(keys[i], call.mode(), new BucketRequest.Permit(
                        call.policy().concurrency(), call.policy().concurrencyLeaseMillis(), call.permitId())));
                continue;
            }
            List<BucketRequest.Limit> limits = limits(call.policy().bandwidths());
            long reserve = reservations != null && reservations[i] != null ? reservations[i].reserve : 0;
            // a paid call's refresh: a check of its cost that reserves the next batch and decides nothing
            ChargeMode mode = paid ? ChargeMode.SHADOW_CHECK : call.mode();
            requests.add(reserve > 0 ? BucketRequest.reserving(keys[i], call.cost(), limits, mode, reserve)
                    : new BucketRequest(keys[i], call.cost(), limits, mode));
        }
        List<BucketOutcome> outcomes;
        try {
            outcomes = breaker.call("the rate-limit decision", () -> store.consume(requests));
        } catch (StoreUnavailableException e) {
            giveBack(taken, false);
            if (e.isSkipped()) {
                throw e; // nothing reached the store
            }
            for (LimitCall call : calls) {
                events.on(call.policy(), call.rawKey(), Outcome.REDIS_ERROR);
            }
            if (!RedisFailures.isPoolExhausted(e)) {
                // The call may have run in Redis. (One that never left the node took nothing; in a flood on an
                // exhausted pool, returns retried in the background would only hold up the permits' renewals.)
                returnLostPermits(calls, keys);
            }
            throw e;
        }
        List<RateLimitDecision> decisions = new ArrayList<>(n);
        boolean admitted = true;
        for (int i = 0, r = 0; i < n; i++) {
            LimitCall call = calls.get(i);
            if (taken != null && taken[i] != null) {
                if (reservations[i] != null) {
                    BucketOutcome refresh = outcomes.get(r++);
                    reservations[i].done(refresh, toDecision(call.policy(), refresh));
                }
                decisions.add(taken[i].decision());
                continue;
            }
            BucketOutcome outcome = outcomes.get(r++);
            boolean concurrency = call.mode().concurrency();
            RateLimitDecision decision = concurrency ? toConcurrencyDecision(call.policy(), outcome)
                    : toDecision(call.policy(), outcome);
            if (reservations != null && reservations[i] != null) {
                decision = reservations[i].done(outcome, decision);
            }
            boolean decides = call.mode().decides();
            admitted &= decision.allowed() || !decides;
            decisions.add(decision);
            // A permit can come back any moment (a request elsewhere completes): such refusals are not remembered.
            if (!decision.allowed() && decides && !concurrency) {
                denials.remember(keys[i], call.policy().bandwidths(), call.cost(), decision);
            }
        }
        if (!admitted) {
            giveBack(taken, true);
        }
        report(calls, decisions, admitted, taken);
        return decisions;
    }

    /**
     * Reserves the next batches of a request paid wholly from local budgets: one store call of checks that decide
     * nothing. When it fails, the request stays admitted (it was paid) and the next request asks again.
     */
    private void refresh(List<LimitCall> calls, String[] keys, LocalBudgets.Reservation[] reservations) {
        List<BucketRequest> requests = new ArrayList<>(1);
        for (int i = 0; i < keys.length; i++) {
            if (reservations[i] != null) {
                requests.add(BucketRequest.reserving(keys[i], calls.get(i).cost(),
                        limits(calls.get(i).policy().bandwidths()), ChargeMode.SHADOW_CHECK, reservations[i].reserve));
            }
        }
        try {
            List<BucketOutcome> outcomes = breaker.call("the reservation of a local budget",
                    () -> store.consume(requests));
            for (int i = 0, r = 0; i < keys.length; i++) {
                if (reservations[i] != null) {
                    BucketOutcome outcome = outcomes.get(r++);
                    reservations[i].done(outcome, toDecision(calls.get(i).policy(), outcome));
                }
            }
        } catch (StoreUnavailableException e) {
            // paid already; the tokens still held are spent while Redis cannot be asked
        } finally {
            for (LocalBudgets.Reservation reservation : reservations) {
                if (reservation != null) {
                    reservation.failed(); // ends it if it has not been done
                }
            }
        }
    }

    /**
     * Gives back the tokens a refused request took from local budgets: all of them, or with {@code keepShadowed} those
     * of calls charged only when the whole request is admitted (a shadowed call keeps its tokens, as the store charges
     * a shadowed policy that admits whatever the others decide).
     */
    private static void giveBack(LocalBudgets.Taken[] taken, boolean keepShadowed) {
        if (taken == null) {
            return;
        }
        for (LocalBudgets.Taken t : taken) {
            if (t != null && !(keepShadowed && t.charge() != ChargeMode.Charge.IF_ALL_ADMIT)) {
                t.giveBack();
            }
        }
    }

    /**
     * Returns the unspent tokens of local budgets of the named policies, one store call per bucket, and forgets the
     * budgets (a reload changed those policies); tokens that cannot be returned (the store fails) are lost.
     */
    public void returnLocalBudgets(Set<String> policies) {
        budgets.returnAll(policies, this::refund);
    }

    /** Returns the unspent tokens of every local budget (the application is undeployed). */
    public void returnLocalBudgets() {
        budgets.returnAll(null, this::refund);
    }

    private void refund(String bucketKey, PolicyConfig policy, long tokens) {
        try {
            breaker.call("the return of a local budget", () -> store.consume(List.of(new BucketRequest(bucketKey,
                    tokens, limits(policy.bandwidths()), ChargeMode.REFUND))));
        } catch (StoreUnavailableException e) {
            // lost: the bucket keeps them charged, which errs on the safe side
        }
    }

    /** The store's view of a policy's bandwidths (one, most often: then without a list to copy). */
    private static List<BucketRequest.Limit> limits(List<Bandwidth> bandwidths) {
        if (bandwidths.size() == 1) {
            Bandwidth only = bandwidths.get(0);
            return List.of(new BucketRequest.Limit(only.intervalUnits(), only.unitsPerMicro(), only.capacity()));
        }
        List<BucketRequest.Limit> limits = new ArrayList<>(bandwidths.size());
        for (Bandwidth bandwidth : bandwidths) {
            limits.add(new BucketRequest.Limit(bandwidth.intervalUnits(), bandwidth.unitsPerMicro(),
                    bandwidth.capacity()));
        }
        return limits;
    }

    private List<RateLimitDecision> refusedLocally(List<LimitCall> calls, String[] keys, LocalBudgets.Taken[] taken) {
        List<RateLimitDecision> refusals = null;
        for (int i = 0; i < keys.length; i++) {
            LimitCall call = calls.get(i);
            if (!call.mode().decides() || call.mode().concurrency() || (taken != null && taken[i] != null)) {
                continue;
            }
            RateLimitDecision refusal = denials.refusal(keys[i], call.policy().bandwidths(), call.cost());
            if (refusal != null) {
                if (refusals == null) {
                    refusals = new ArrayList<>(1);
                }
                refusals.add(refusal);
                events.on(call.policy(), call.rawKey(), Outcome.DENIED_LOCALLY);
            }
        }
        return refusals;
    }

    /**
     * Tells what each policy made of a decided request (the meanings users read are in
     * {@code docs/observability.md}):
     * <ul>
     *   <li>a deciding policy ({@link ChargeMode#ENFORCE}, {@link ChargeMode#CHECK}, {@link ChargeMode#CONCURRENCY})
     *       that refused the request, {@link Outcome#DENIED};</li>
     *   <li>a shadowed one ({@link ChargeMode#SHADOW}, {@link ChargeMode#SHADOW_CHECK},
     *       {@link ChargeMode#SHADOW_CONCURRENCY}) that would have refused it, {@link Outcome#WOULD_DENY}, never
     *       {@code DENIED};</li>
     *   <li>any of these that admitted it, {@link Outcome#ALLOWED}, but only when the whole request was admitted: a
     *       policy that would have admitted a request another policy refused tells neither (an enforced one
     *       charged nothing); a {@code CHECK} admission is told although nothing was charged yet, the charge
     *       after the response being told on its own; {@link Outcome#ALLOWED_LOCALLY} instead when the node's local
     *       budget paid for the call;</li>
     *   <li>a {@link ChargeMode#CHARGE} call (after a response whose status counts),
     *       {@link Outcome#CHARGED_AFTER_RESPONSE}.</li>
     * </ul>
     * A policy with a rate and a concurrency limit makes two calls and tells once per request: denied when either
     * refused it.
     */
    private void report(List<LimitCall> calls, List<RateLimitDecision> decisions, boolean admitted,
                        LocalBudgets.Taken[] taken) {
        // One call tells at most once by itself, so the set is needed only for several.
        Set<String> told = calls.size() > 1 ? new HashSet<>() : null;
        for (int i = 0; i < calls.size(); i++) {
            LimitCall call = calls.get(i);
            if (call.mode() == ChargeMode.CHARGE) {
                events.on(call.policy(), call.rawKey(), Outcome.CHARGED_AFTER_RESPONSE);
            } else if (!decisions.get(i).allowed() && first(told, call.policy().name())) {
                events.on(call.policy(), call.rawKey(), call.mode().decides() ? Outcome.DENIED : Outcome.WOULD_DENY);
            }
        }
        for (int i = 0; admitted && i < calls.size(); i++) {
            LimitCall call = calls.get(i);
            if (call.mode() != ChargeMode.CHARGE && decisions.get(i).allowed() && first(told, call.policy().name())) {
                events.on(call.policy(), call.rawKey(),
                        taken != null && taken[i] != null ? Outcome.ALLOWED_LOCALLY : Outcome.ALLOWED);
            }
        }
    }

    /** Whether {@code name} is told for the first time in this request (always, without a set). */
    private static boolean first(Set<String> told, String name) {
        return told == null || told.add(name);
    }

    /**
     * Decides one request's calls as every entry point applies them (the HTTP gate, the programmatic limiter): in
     * one {@link #decide(List)}, the request admitted when every {@link ChargeMode#decides() deciding} call is.
     * When the store cannot be asked (it failed, or the breaker skips it), the request is refused if a deciding
     * call's policy says {@code on-redis-failure=deny} (a shadowed policy's does not apply), else admitted
     * unchecked, each call's policy told {@link Outcome#FAILED_OPEN}.
     */
    public Admission admit(List<LimitCall> calls) {
        List<RateLimitDecision> decisions;
        try {
            decisions = decide(calls);
        } catch (StoreUnavailableException e) {
            for (LimitCall call : calls) {
                if (call.mode().decides() && call.policy().onRedisFailure() == FailureMode.DENY) {
                    return Admission.unavailable(Admission.Outcome.UNAVAILABLE_REFUSED, e);
                }
            }
            for (LimitCall call : calls) {
                events.on(call.policy(), call.rawKey(), Outcome.FAILED_OPEN);
            }
            return Admission.unavailable(Admission.Outcome.UNAVAILABLE_ADMITTED, e);
        }
        if (decisions.size() != calls.size()) {
            // refused by the node's memory of earlier refusals: only the refusing decisions came back
            return new Admission(Admission.Outcome.REFUSED, decisions, decisions, null);
        }
        List<RateLimitDecision> deciding = new ArrayList<>(decisions.size());
        boolean refused = false;
        for (int i = 0; i < decisions.size(); i++) {
            if (calls.get(i).mode().decides()) {
                deciding.add(decisions.get(i));
                refused |= !decisions.get(i).allowed();
            }
        }
        return new Admission(refused ? Admission.Outcome.REFUSED : Admission.Outcome.ADMITTED, decisions, deciding,
                null);
    }

    /** Tells that the client of a request is exempt from {@code policy}, which neither checked nor charged it. */
    public void exempted(PolicyConfig policy) {
        events.on(policy, null, Outcome.EXEMPT);
    }

    /** Decides a single call. */
    public RateLimitDecision decide(PolicyConfig policy, String rawKey, long cost) {
        return decide(List.of(new LimitCall(policy, rawKey, cost))).get(0);
    }

    /**
     * The decision shows the tightest bandwidth as a bucket: {@code limit} is its capacity (the burst of the first
     * bandwidth) and {@code windowSeconds} the time it takes to refill from empty, so that {@code remaining}
     * never exceeds {@code limit}. Without a burst these are the bandwidth's token count and period.
     */
    private static RateLimitDecision toDecision(PolicyConfig policy, BucketOutcome outcome) {
        Bandwidth tightest = policy.bandwidths().get(outcome.tightest());
        long wait = outcome.waitMicros();
        long retryMillis = wait < 0 ? RateLimitDecision.NEVER : ceilMillis(wait);
        if (!outcome.allowed() && retryMillis == 0) {
            retryMillis = 1;
        }
        return RateLimitDecision.of(policy.name(), outcome.allowed(), Math.max(0, outcome.remaining()),
                tightest.capacity(), tightest.windowSeconds(), retryMillis, ceilMillis(outcome.resetMicros()));
    }

    /**
     * A concurrency limit's decision. Its wait is capped at {@link #CONCURRENCY_RETRY_MILLIS}: a permit comes back
     * whenever a request in flight completes, which nobody can foresee; the earliest lease's end the store reports
     * bounds the wait only when a holder died.
     */
    private static RateLimitDecision toConcurrencyDecision(PolicyConfig policy, BucketOutcome outcome) {
        long wait = Math.min(ceilMillis(Math.max(0, outcome.waitMicros())), CONCURRENCY_RETRY_MILLIS);
        if (!outcome.allowed()) {
            wait = Math.max(1, wait);
        }
        return RateLimitDecision.ofConcurrency(policy.name(), outcome.allowed(), Math.max(0, outcome.remaining()),
                policy.concurrency(), wait, ceilMillis(outcome.resetMicros()));
    }

    /** The longest wait a concurrency limit's decision tells: {@code Retry-After: 1}. */
    static final long CONCURRENCY_RETRY_MILLIS = 1000;

    private String key(LimitCall call) {
        return call.mode().concurrency() ? permitKey(call.policy().name(), call.rawKey())
                : bucketKey(call.policy().name(), call.rawKey());
    }

    /**
     * After a decision that failed in the store: its script may have run and taken permits although the reply was
     * lost (or another hash slot's call failed after one slot took them), and the request holds none of them, so
     * they are returned in the background, owner-checked by the request's permit id.
     */
    private void returnLostPermits(List<LimitCall> calls, String[] keys) {
        List<String> permitKeys = new ArrayList<>(1);
        String permitId = null;
        long lease = 0;
        for (int i = 0; i < keys.length; i++) {
            LimitCall call = calls.get(i);
            if (call.mode().concurrency()) {
                permitKeys.add(keys[i]);
                permitId = call.permitId();
                lease = Math.max(lease, call.policy().concurrencyLeaseMillis());
            }
        }
        if (permitId != null) {
            String id = permitId;
            PermitReturns.inBackground(watchdog.get(), nanoTime, lease, () -> release(permitKeys, id),
                    "the return of " + permitKeys.size() + " permit(s) a failed decision may have taken");
        }
    }

    /** Returns permits in one store call, through the breaker (skipped while it is open). */
    int release(List<String> keys, String permitId) {
        return breaker.call("the return of permits of concurrency limits", () -> store.release(keys, permitId));
    }

    private static long ceilMillis(long micros) {
        return -Math.floorDiv(-micros, 1000L);
    }

    public RateLimitStore store() {
        return store;
    }

    /** The node's memory of refused buckets. */
    public DenyCache denials() {
        return denials;
    }

    /** The breaker every call of this engine goes through. */
    public CircuitBreaker breaker() {
        return breaker;
    }
}
