package dev.sluice.internal.cdi;

import dev.sluice.Bounded;
import dev.sluice.LockLostException;
import dev.sluice.Permit;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

/**
 * Runs a {@code @Bounded} method while holding a permit of its distributed semaphore, outside
 * {@code @Transactional} like {@link LockedInterceptor}. The method does not run without a permit; a permit
 * whose lease was lost while the method ran is reported with {@link LockLostException} after it returns
 * (attached as suppressed when the method threw).
 */
@Bounded("")
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 100)
public class BoundedInterceptor {

    @Inject
    DefaultSluice sluice;

    @AroundInvoke
    Object aroundInvoke(InvocationContext invocation) throws Exception {
        GuardedMethods.BoundSpec policy = sluice.boundPolicy(invocation.getTarget().getClass(), invocation.getMethod());
        Permit permit = sluice.semaphore(policy.name(), policy.permits()).acquire(policy.lease(), policy.maxWait());
        Object result;
        try {
            result = invocation.proceed();
        } catch (Exception | Error e) {
            LockLostException lost = release(permit);
            if (lost != null) {
                e.addSuppressed(lost);
            }
            throw e;
        }
        LockLostException lost = release(permit);
        if (lost != null) {
            throw lost;
        }
        return result;
    }

    private static LockLostException release(Permit permit) {
        boolean held = permit.isHeld();
        try {
            permit.close();
        } catch (LockLostException e) {
            return e;
        }
        return held ? null : new LockLostException(permit.name(), "A permit of semaphore '" + permit.name()
                + "' lost its lease while the method ran; more holders than permits may have run at once");
    }
}
