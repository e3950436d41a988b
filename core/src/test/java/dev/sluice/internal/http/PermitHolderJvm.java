package dev.sluice.internal.http;

import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.HeaderMode;
import dev.sluice.internal.config.SluiceConfig;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.runtime.SluiceRuntime;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A node that takes permits of a concurrency limit and keeps them (renewed) until it is killed: started in a JVM
 * of its own by {@link ConcurrencyLeaseIT}. Arguments: {@code key=value} configuration, then the client address
 * and how many requests to admit. Prints {@code HELD} once they all hold a permit, then waits for its end.
 */
public final class PermitHolderJvm {

    private PermitHolderJvm() {
    }

    public static void main(String[] args) throws IOException {
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < args.length - 2; i++) {
            int eq = args[i].indexOf('=');
            values.put(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        String client = args[args.length - 2];
        int requests = Integer.parseInt(args[args.length - 1]);
        SluiceConfig config = SluiceConfigLoader.load(ConfigSources.of(values));
        SluiceRuntime runtime = SluiceRuntime.start(config);
        RateLimitGate gate = RateLimitGate.of(runtime, HeaderMode.IETF);
        List<RateLimitGate.Policy> policies = List.of(
                RateLimitGate.Policy.of(config.policy("reports").orElseThrow(), false));
        for (int i = 0; i < requests; i++) {
            if (!gate.decide(TestRequest.get("/reports").from(client), policies, null).admitted()) {
                System.out.println("REFUSED");
                return;
            }
        }
        System.out.println("HELD");
        System.out.flush();
        // Until killed (or its parent closes stdin): the permits stay held and renewed.
        while (System.in.read() >= 0) {
            continue;
        }
    }
}
