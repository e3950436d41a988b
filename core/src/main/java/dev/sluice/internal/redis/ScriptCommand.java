package dev.sluice.internal.redis;

import dev.sluice.internal.config.RedisSettings.Mode;
import redis.clients.jedis.Builder;
import redis.clients.jedis.BuilderFactory;
import redis.clients.jedis.ClusterCommandArguments;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.CommandObject;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.args.Rawable;
import redis.clients.jedis.util.KeyValue;
import redis.clients.jedis.util.SafeEncoder;

import java.util.ArrayList;
import java.util.List;

/**
 * One {@code EVALSHA} as Jedis sends it ({@code UnifiedJedis.evalsha(sha, keys, args)} sends the same bytes and
 * reads the same reply), built for a call that is made for every request. Jedis's own command encodes each string
 * argument twice (into bytes, then a defensive copy of them), and maps the reply through a stream into a new list;
 * here each argument is encoded once, the SHA and the small decimal numbers most arguments are (counts, costs, flags)
 * not at all, and a reply of integers is returned as Jedis read it. Stateless.
 */
final class ScriptCommand {

    /** Decimal numbers below this are written from a table: most arguments of the scripts are such numbers. */
    private static final int SMALL = 1000;
    private static final Rawable[] SMALL_NUMBERS = new Rawable[SMALL];

    static {
        for (int i = 0; i < SMALL; i++) {
            SMALL_NUMBERS[i] = new Encoded(SafeEncoder.encode(Integer.toString(i)));
        }
    }

    private ScriptCommand() {
    }

    /**
     * {@code EVALSHA sha numkeys key... arg...}; in Cluster its arguments know the keys' hash slot, by which the
     * connector's executor routes it.
     */
    static CommandObject<Object> evalsha(LuaScript script, List<String> keys, List<String> args, Mode mode) {
        CommandArguments command = mode == Mode.CLUSTER ? new ClusterCommandArguments(Protocol.Command.EVALSHA)
                : new CommandArguments(Protocol.Command.EVALSHA);
        int count = keys.size();
        command.add(script.shaArgument()).add(count < SMALL ? SMALL_NUMBERS[count] : encode(Integer.toString(count)));
        for (int i = 0; i < keys.size(); i++) {
            command.key(encode(keys.get(i)));
        }
        for (int i = 0; i < args.size(); i++) {
            command.add(encode(args.get(i)));
        }
        return new CommandObject<>(command, REPLY);
    }

    /** {@code value} as Jedis writes a string argument: its bytes in Jedis's charset (UTF-8). */
    static Rawable encode(String value) {
        int small = smallNumber(value);
        return small >= 0 ? SMALL_NUMBERS[small] : new Encoded(SafeEncoder.encode(value));
    }

    /** The value of a decimal number below {@link #SMALL} written as {@link Integer#toString} writes it, else -1. */
    private static int smallNumber(String value) {
        int length = value.length();
        if (length == 0 || length > 3 || (length > 1 && value.charAt(0) == '0')) {
            return -1;
        }
        int number = 0;
        for (int i = 0; i < length; i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            number = number * 10 + (c - '0');
        }
        return number;
    }

    /**
     * Jedis's {@code BuilderFactory.AGGRESSIVE_ENCODED_OBJECT}, what {@code evalsha} answers with (bulk strings as
     * strings, arrays as lists, integers as {@code Long}, nested errors as exceptions), without a stream and without
     * a copy of a list that holds no bulk string or array: such a list is returned as read.
     */
    static final Builder<Object> REPLY = new Builder<>() {
        @Override
        public Object build(Object data) {
            if (data instanceof byte[] bytes) {
                return SafeEncoder.encode(bytes);
            }
            if (!(data instanceof List<?> list) || list.isEmpty() || list.get(0) instanceof KeyValue) {
                return BuilderFactory.AGGRESSIVE_ENCODED_OBJECT.build(data); // a map (RESP3), or an empty one
            }
            List<Object> built = null;
            for (int i = 0; i < list.size(); i++) {
                Object element = list.get(i);
                if (element instanceof Long) {
                    continue; // most elements: a check of the class alone, where List is an interface to look up
                }
                if (element instanceof byte[] || element instanceof List) {
                    if (built == null) {
                        built = new ArrayList<>(list);
                    }
                    built.set(i, build(element));
                }
            }
            @SuppressWarnings("unchecked")
            List<Object> asRead = (List<Object>) list;
            return built == null ? asRead : built;
        }

    };

    /** Bytes given to Jedis as they are (Jedis's own {@code Raw} copies them first). */
    static final class Encoded implements Rawable {
        private final byte[] bytes;

        Encoded(byte[] bytes) {
            this.bytes = bytes;
        }

        @Override
        public byte[] getRaw() {
            return bytes;
        }
    }
}
