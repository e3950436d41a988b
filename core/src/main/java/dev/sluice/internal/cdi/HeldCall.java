package dev.sluice.internal.cdi;

import dev.sluice.LockLostException;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.interceptor.InvocationContext;

import java.lang.reflect.Method;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * What {@link LockedInterceptor} and {@link BoundedInterceptor} do alike once they hold their lock or permit: run the
 * method, give the hold back however the method ends, and report a lease lost while it ran. Stateless.
 */
final class HeldCall {

    private HeldCall() {
    }

    /**
     * Proceeds with {@code invocation}, then calls {@code giveBack}. A lost lease ({@code giveBack}'s answer when not
     * null) is attached as suppressed to the method's exception when it threw, else handed to {@code onLost}, which
     * may throw it.
     */
    static Object proceed(InvocationContext invocation, Supplier<LockLostException> giveBack,
                          Consumer<LockLostException> onLost) throws Exception {
        Object result;
        try {
            result = invocation.proceed();
        } catch (Exception | Error e) {
            LockLostException lost = giveBack.get();
            if (lost != null) {
                e.addSuppressed(lost);
            }
            throw e;
        }
        LockLostException lost = giveBack.get();
        if (lost != null) {
            onLost.accept(lost);
        }
        return result;
    }

    /**
     * The class whose guard applies: the bean's, or, where a container cannot tell ({@code intercepted} null), the
     * method's declaring class.
     */
    static Class<?> beanClass(Bean<?> intercepted, Method method) {
        return intercepted != null ? intercepted.getBeanClass() : method.getDeclaringClass();
    }
}
