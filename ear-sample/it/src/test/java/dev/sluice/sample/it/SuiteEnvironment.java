package dev.sluice.sample.it;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

public final class SuiteEnvironment implements BeforeAllCallback {
    @Override
    public void beforeAll(ExtensionContext context) {
        int offset = Integer.getInteger("sluice.it.wildfly.port-offset", 100);
        System.setProperty("sluice.it.wildfly.management-port", String.valueOf(9990 + offset));
        System.setProperty("sluice.it.redis.uri", "redis://127.0.0.1:1");
    }
}
