package dev.sluice.internal.cdi;

import dev.sluice.LockHandle;
import dev.sluice.LockLostException;
import dev.sluice.Locked;
import jakarta.annotation.Priority;
import jakarta.enterprise.inject.Intercepted;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

import java.lang.System.Logger.Level;
import java.lang.reflect.Method;

/**
 * Runs a {@code @Locked} method while holding its distributed lock. At {@code PLATFORM_BEFORE + 90} it wraps
 * {@code @Bounded} ({@code + 100}; a caller waiting for a busy key holds no permit) and {@code @Transactional}
 * ({@code PLATFORM_BEFORE + 200}). A transaction that is still running when the method returns (an EJB's
 * container-managed one, a caller's) releases the lock when it completes, through the lock handle's close
 * ({@link dev.sluice.internal.tx.Transactions}). The method does not run unless the lock was acquired; a lease
 * lost while it ran is reported after it returns, as {@link Locked#onLost()} says.
 */
@Locked
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 90)
public class LockedInterceptor {

    private static final System.Logger LOG = System.getLogger("dev.sluice.lock");

    @Inject
    SluiceExtension extension;

    /** The bean whose method is called; null where a container cannot tell (then the method's declaring class). */
    @Inject
    @Intercepted
    Bean<?> intercepted;

    @AroundInvoke
    Object aroundInvoke(InvocationContext invocation) throws Exception {
        Method method = invocation.getMethod();
        GuardedMethods.LockGuard policy = extension.guardedMethods().lock(HeldCall.beanClass(intercepted, method),
                method);
        String key = policy.key().render(invocation.getParameters());
        LockHandle handle = extension.runtime().locks().lock(key, policy.name()).acquire(policy.lease(), policy.maxWait());
        return HeldCall.proceed(invocation, () -> release(handle), lost -> {
            if (policy.onLost() == Locked.OnLost.THROW) {
                throw lost;
            }
            // The loss itself was warned about once, when it was found.
            LOG.log(Level.INFO, "Sluice: " + policy.name() + " returned its result although its lock was lost "
                    + "(onLost=LOG): " + lost.getMessage());
        });
    }

    /** Releases; answers the lost lease, if it was lost. */
    private static LockLostException release(LockHandle handle) {
        boolean held = handle.isHeld();
        try {
            handle.close();
        } catch (LockLostException e) {
            return e;
        }
        return held ? null : new LockLostException(handle.key(), "Lock '" + handle.key() + "' (fencing token "
                + handle.fencingToken() + ") lost its lease while the method ran; another holder may have overlapped");
    }
}
