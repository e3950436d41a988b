package dev.sluice.internal.cdi;

import dev.sluice.Bounded;
import dev.sluice.Locked;
import jakarta.enterprise.context.ApplicationScoped;

/** Beans whose annotations must fail deployment; each is deployed on its own. */
final class BadTemplates {

    private BadTemplates() {
    }

    @ApplicationScoped
    public static class IndexPastLastParameter {
        @Locked(key = "order:{2}")
        public void buy(long orderId, int quantity) {
        }
    }

    @ApplicationScoped
    public static class UnknownParameterName {
        @Locked(key = "order:{orderNo}")
        public void buy(long orderId) {
        }
    }

    @ApplicationScoped
    public static class UnclosedBrace {
        @Locked(key = "order:{0")
        public void buy(long orderId) {
        }
    }

    @ApplicationScoped
    public static class BadLease {
        @Locked(lease = "ten seconds")
        public void buy() {
        }
    }

    @ApplicationScoped
    @Bounded(value = "pdf", permits = 0)
    public static class NoPermits {
        public void render() {
        }
    }

    @ApplicationScoped
    @Bounded(value = " ")
    public static class BlankSemaphoreName {
        public void render() {
        }
    }

    @ApplicationScoped
    public static class IdentityParameter {
        @Locked(key = "order:{0}")
        public void settle(Orders.Order order) {
        }
    }

    @ApplicationScoped
    public static class ArrayParameter {
        @Locked(key = "orders:{ids}")
        public void settle(long[] ids) {
        }
    }

    @ApplicationScoped
    public static class UnknownProperty {
        @Locked(key = "order:{order.number}")
        public void settle(Orders.Order order) {
        }
    }
}
