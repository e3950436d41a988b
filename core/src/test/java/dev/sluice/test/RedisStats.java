package dev.sluice.test;

import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Reads what tests assert about a Redis server: command counts from {@code INFO commandstats} and connections
 * from {@code CLIENT LIST}. Stateless and thread-safe.
 */
public final class RedisStats {

    private RedisStats() {
    }

    /**
     * The {@code calls} of {@code command} in an {@code INFO commandstats} reply; 0 when it never ran. Subcommands
     * are written as Redis names them, e.g. {@code script|load}.
     */
    public static long commandCount(String commandStats, String command) {
        String prefix = "cmdstat_" + command.toLowerCase(Locale.ROOT) + ":";
        for (String line : commandStats.split("\r?\n")) {
            if (line.startsWith(prefix)) {
                for (String field : line.substring(prefix.length()).split(",")) {
                    if (field.startsWith("calls=")) {
                        return Long.parseLong(field.substring("calls=".length()));
                    }
                }
            }
        }
        return 0;
    }

    /** The {@code CLIENT LIST} reply of the server {@code jedis} talks to (standalone or Sentinel). */
    public static String clientList(UnifiedJedis jedis) {
        Object reply = jedis.executeCommand(new CommandArguments(Protocol.Command.CLIENT).add("LIST"));
        return reply instanceof byte[] ? new String((byte[]) reply, StandardCharsets.UTF_8) : String.valueOf(reply);
    }

    /** How many connections in a {@code CLIENT LIST} reply carry the name {@code clientName}. */
    public static long clientCount(String clientList, String clientName) {
        String field = "name=" + clientName;
        return clientList.lines()
                .filter(line -> (" " + line + " ").contains(" " + field + " "))
                .count();
    }
}
