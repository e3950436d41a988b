package dev.sluice.internal.cdi;

import dev.sluice.LockHandle;
import dev.sluice.Sluice;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * At {@code PLATFORM_BEFORE + 200}, where the JTA {@code @Transactional} interceptor runs: records at
 * "begin" and at "commit" whether another thread could take the method's lock.
 */
@FakeTransactional
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 200)
public class FakeTransactionInterceptor {

    static final List<String> OBSERVED = new CopyOnWriteArrayList<>();

    @Inject
    Sluice sluice;

    @AroundInvoke
    Object around(InvocationContext invocation) throws Exception {
        String key = "commit:" + invocation.getParameters()[0];
        OBSERVED.add("begin, lock free to others: " + freeToAnotherThread(key));
        Object result = invocation.proceed();
        OBSERVED.add("commit, lock free to others: " + freeToAnotherThread(key));
        return result;
    }

    private boolean freeToAnotherThread(String key) throws Exception {
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            return other.submit(() -> {
                Optional<LockHandle> h = sluice.lock(key).tryAcquire(Duration.ofSeconds(5));
                h.ifPresent(LockHandle::close);
                return h.isPresent();
            }).get();
        } finally {
            other.shutdown();
        }
    }
}
