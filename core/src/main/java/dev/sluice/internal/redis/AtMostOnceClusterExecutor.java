package dev.sluice.internal.redis;

import redis.clients.jedis.CommandObject;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.StaticCommandFlagsRegistry;
import redis.clients.jedis.exceptions.JedisAskDataException;
import redis.clients.jedis.exceptions.JedisClusterOperationException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisMovedDataException;
import redis.clients.jedis.exceptions.JedisRedirectionException;
import redis.clients.jedis.executors.ClusterCommandExecutor;
import redis.clients.jedis.executors.CommandExecutor;
import redis.clients.jedis.providers.ClusterConnectionProvider;

import java.time.Duration;

/**
 * Sends each Cluster command at most once. Jedis's own cluster executor retries a command whose connection failed
 * at any point, also after it was sent: when a node runs a script and its reply is lost (a timeout, a dropped
 * connection), the script runs again, which charges a rate limit twice or refuses a lock to the caller that already
 * got it, and the caller waits one timeout per attempt.
 *
 * <p>Here a command is sent again only when Redis itself says it did not run it here ({@code MOVED}, {@code ASK})
 * or when no connection to the node could be had (the command never left), and only while
 * {@code sluice.redis.timeout} from the first attempt has not passed. A failure once the command was written fails
 * the call with {@link JedisConnectionException}. Commands sent to every master ({@code PING}) go through Jedis's
 * executor with a single attempt.
 *
 * <p>Thread-safe.
 */
final class AtMostOnceClusterExecutor implements CommandExecutor {

    /** Redirections followed at most, as Jedis's default attempts: a slot migrating twice in one call is rare. */
    static final int MAX_ATTEMPTS = 5;

    private final ClusterConnectionProvider provider;
    private final ClusterCommandExecutor broadcasts;
    private final long budgetNanos;

    /**
     * @param provider the cluster's connections
     * @param budget   how long a command may take in all, its attempts together ({@code sluice.redis.timeout})
     */
    AtMostOnceClusterExecutor(ClusterConnectionProvider provider, Duration budget) {
        this.provider = provider;
        this.budgetNanos = budget.toNanos();
        this.broadcasts = new ClusterCommandExecutor(provider, 1, budget, StaticCommandFlagsRegistry.registry());
    }

    @Override
    public <T> T executeCommand(CommandObject<T> command) {
        long deadline = System.nanoTime() + budgetNanos;
        JedisRedirectionException redirect = null;
        JedisConnectionException notSent = null;
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            if (attempt > 0 && System.nanoTime() - deadline > 0) {
                break;
            }
            Connection connection;
            try {
                connection = connect(command, redirect);
            } catch (JedisConnectionException e) {
                // Nothing was sent: the pool could not open a connection, or the node did not answer the handshake
                // or ASKING. The slot may have moved to a promoted replica.
                notSent = e;
                redirect = null;
                if (System.nanoTime() - deadline < 0) {
                    provider.renewSlotCache();
                }
                continue;
            }
            try {
                return connection.executeCommand(command);
            } catch (JedisRedirectionException moved) {
                redirect = moved;
                if (moved instanceof JedisMovedDataException) {
                    provider.renewSlotCache(connection);
                }
            } finally {
                connection.close();
            }
        }
        if (notSent != null) {
            throw new JedisConnectionException("no connection to the Redis Cluster node for the command within "
                    + Duration.ofNanos(budgetNanos).toMillis() + " ms: " + notSent.getMessage(), notSent);
        }
        throw new JedisClusterOperationException("the Redis Cluster redirected the command " + MAX_ATTEMPTS
                + " times; the slot is probably migrating", redirect);
    }

    /** A connection ready to receive the command: to the slot's node, or to where Redis redirected it. */
    private Connection connect(CommandObject<?> command, JedisRedirectionException redirect) {
        if (redirect == null) {
            return provider.getConnection(command.getArguments());
        }
        Connection connection = provider.getConnection(redirect.getTargetNode());
        if (redirect instanceof JedisAskDataException) {
            try {
                connection.executeCommand(Protocol.Command.ASKING);
            } catch (RuntimeException e) {
                connection.close();
                throw e;
            }
        }
        return connection;
    }

    @Override
    public <T> T broadcastCommand(CommandObject<T> command) {
        return broadcasts.broadcastCommand(command);
    }

    @Override
    public void close() {
        provider.close();
    }
}
