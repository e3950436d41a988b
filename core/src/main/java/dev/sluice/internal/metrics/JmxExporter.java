package dev.sluice.internal.metrics;

import javax.management.InstanceAlreadyExistsException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.StandardMBean;
import java.lang.System.Logger.Level;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Publishes an application's metrics as MXBeans in the platform MBean server, the one WildFly's and
 * Payara's JMX consoles show:
 * <ul>
 *   <li>{@code dev.sluice:type=Redis,app=<app>} ({@link RedisMXBean});</li>
 *   <li>{@code dev.sluice:type=Config,app=<app>} ({@link ConfigMXBean}, with the operation {@code reload()});</li>
 *   <li>{@code dev.sluice:type=RateLimit,app=<app>,name=<policy>} ({@link RateLimitMXBean});</li>
 *   <li>{@code dev.sluice:type=Lock,app=<app>,name=<lock>} and {@code type=Semaphore} ({@link GuardMXBean}).</li>
 * </ul>
 * The {@code Redis} bean is registered first and claims the application id: when another application
 * (which may carry its own copy of Sluice, so no static of ours could tell) already uses it,
 * {@link #claim} fails and the caller tries the next id. {@link #close()} unregisters every bean, so an
 * undeployed application leaves nothing in the server's MBean server. Values that are not legal in an
 * ObjectName as they stand are quoted. Not thread-safe on its own; {@link SluiceMetrics} serialises calls.
 */
final class JmxExporter implements MetricsExporter {

    static final String DOMAIN = "dev.sluice";

    private static final System.Logger LOG = System.getLogger("dev.sluice");

    private final MBeanServer server;
    private final String app;
    private final List<ObjectName> registered = new ArrayList<>();

    JmxExporter(MBeanServer server, String app) {
        this.server = server;
        this.app = app;
    }

    static MBeanServer platformServer() {
        return ManagementFactory.getPlatformMBeanServer();
    }

    /** {@code dev.sluice:type=<type>,app=<app>[,name=<name>]}. */
    static ObjectName objectName(String type, String app, String name) {
        StringBuilder text = new StringBuilder(DOMAIN).append(":type=").append(type).append(",app=").append(value(app));
        if (name != null) {
            text.append(",name=").append(value(name));
        }
        try {
            return new ObjectName(text.toString());
        } catch (JMException e) {
            throw new IllegalArgumentException("not a valid ObjectName: " + text, e);
        }
    }

    /** The value as it stands when ObjectName allows it unquoted, else quoted. */
    static String value(String raw) {
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == ',' || c == '=' || c == ':' || c == '"' || c == '*' || c == '?' || c == '\n' || c == '\\') {
                return ObjectName.quote(raw);
            }
        }
        return raw.isEmpty() ? ObjectName.quote(raw) : raw;
    }

    /**
     * Registers the application's {@code Redis} bean under this exporter's app id.
     *
     * @return false when another application already holds the id
     */
    boolean claim(SluiceMetrics metrics) {
        RedisStatus status = metrics.redis();
        RedisMXBean bean = new RedisMXBean() {
            @Override
            public String getMode() {
                return status.mode().name();
            }

            @Override
            public boolean isReachable() {
                return status.isReachable();
            }

            @Override
            public boolean isBreakerOpen() {
                return status.isBreakerOpen();
            }
        };
        try {
            register(objectName("Redis", app, null), new StandardMBean(bean, RedisMXBean.class, true));
        } catch (InstanceAlreadyExistsException taken) {
            return false;
        }
        registerQuietly(objectName("Config", app, null), new StandardMBean(config(metrics.reloads()), ConfigMXBean.class, true));
        return true;
    }

    private static ConfigMXBean config(ReloadMetrics reloads) {
        return new ConfigMXBean() {
            @Override
            public String reload() {
                return reloads.reload();
            }

            @Override
            public long getAppliedReloads() {
                return reloads.appliedCount();
            }

            @Override
            public long getRefusedReloads() {
                return reloads.refusedCount();
            }
        };
    }

    @Override
    public void runtime(SluiceMetrics metrics) {
        // claim() registered the application-wide bean already.
    }

    @Override
    public void policy(PolicyMetrics policy) {
        RateLimitMXBean bean = new RateLimitMXBean() {
            @Override
            public long getAllowed() {
                return policy.allowedCount();
            }

            @Override
            public long getDenied() {
                return policy.deniedCount();
            }

            @Override
            public long getWouldDeny() {
                return policy.wouldDenyCount();
            }

            @Override
            public long getChargedAfterResponse() {
                return policy.chargedAfterResponseCount();
            }

            @Override
            public long getExempt() {
                return policy.exemptCount();
            }

            @Override
            public long getRedisErrors() {
                return policy.redisErrorCount();
            }

            @Override
            public long getFailOpen() {
                return policy.failOpenCount();
            }

            @Override
            public long getDeniedLocally() {
                return policy.deniedLocallyCount();
            }

            @Override
            public long getAllowedLocally() {
                return policy.allowedLocallyCount();
            }

            @Override
            public String reset(String key) {
                try {
                    return policy.reset(key);
                } catch (RuntimeException e) {
                    // a JMX client may not have Sluice's (or Jedis') exception classes
                    throw new IllegalStateException(e.getMessage());
                }
            }

            @Override
            public boolean isBreakerOpen() {
                return policy.status().isBreakerOpen();
            }
        };
        registerQuietly(objectName(Kind.RATE_LIMIT.jmxType(), app, policy.name()),
                new StandardMBean(bean, RateLimitMXBean.class, true));
    }

    @Override
    public void guard(GuardMetrics guard) {
        GuardMXBean bean = new GuardMXBean() {
            @Override
            public long getAcquired() {
                return guard.waits().count();
            }

            @Override
            public double getWaitTotalMillis() {
                return guard.waits().total(TimeUnit.MILLISECONDS);
            }

            @Override
            public double getWaitMaxMillis() {
                return guard.waits().max(TimeUnit.MILLISECONDS);
            }

            @Override
            public long getReleased() {
                return guard.holds().count();
            }

            @Override
            public double getHoldTotalMillis() {
                return guard.holds().total(TimeUnit.MILLISECONDS);
            }

            @Override
            public double getHoldMaxMillis() {
                return guard.holds().max(TimeUnit.MILLISECONDS);
            }

            @Override
            public long getTimeouts() {
                return guard.timeoutCount();
            }

            @Override
            public long getLeasesLost() {
                return guard.leasesLostCount();
            }

            @Override
            public long getRenewals() {
                return guard.renewalCount();
            }

            @Override
            public long getRedisErrors() {
                return guard.redisErrorCount();
            }
        };
        registerQuietly(objectName(guard.kind().jmxType(), app, guard.name()),
                new StandardMBean(bean, GuardMXBean.class, true));
    }

    private void register(ObjectName name, StandardMBean bean) throws InstanceAlreadyExistsException {
        try {
            server.registerMBean(bean, name);
            registered.add(name);
        } catch (InstanceAlreadyExistsException e) {
            throw e;
        } catch (JMException | RuntimeException e) {
            LOG.log(Level.WARNING, "Sluice: could not register MBean " + name + "; it is missing from JMX", e);
        }
    }

    private void registerQuietly(ObjectName name, StandardMBean bean) {
        try {
            register(name, bean);
        } catch (InstanceAlreadyExistsException e) {
            // The app id is ours (claim() succeeded), so only a leftover of an earlier copy of this application
            // can hold the name; replacing it frees that copy's class loader too.
            try {
                server.unregisterMBean(name);
                register(name, bean);
            } catch (JMException | RuntimeException again) {
                LOG.log(Level.WARNING, "Sluice: could not register MBean " + name + "; it is missing from JMX", again);
            }
        }
    }

    @Override
    public void close() {
        for (ObjectName name : registered) {
            try {
                server.unregisterMBean(name);
            } catch (JMException | RuntimeException e) {
                LOG.log(Level.DEBUG, "Sluice: MBean " + name + " was already gone", e);
            }
        }
        registered.clear();
    }
}
