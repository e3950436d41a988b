package dev.sluice.internal.redis;

import dev.sluice.StoreUnavailableException;

import java.util.List;

/**
 * Validated reading of Lua scripts' replies. Scripts can be replaced by operators ({@code sluice.script.<name>}), so
 * a reply of another shape than the bundled script's header documents is a {@link StoreUnavailableException} naming
 * the script and where it was loaded from, never a {@code ClassCastException}. Stateless.
 */
public final class ScriptReplies {

    private ScriptReplies() {
    }

    /**
     * A reply of exactly {@code count} integers.
     *
     * @throws StoreUnavailableException when it has another shape
     */
    public static long[] integers(Object reply, int count, LuaScript script) {
        if (!(reply instanceof List<?> values) || values.size() != count) {
            throw misshapen(script, "expected " + count + " integers, got " + reply);
        }
        long[] numbers = new long[count];
        for (int i = 0; i < count; i++) {
            if (!(values.get(i) instanceof Long number)) {
                throw misshapen(script, "expected " + count + " integers, got " + reply);
            }
            numbers[i] = number;
        }
        return numbers;
    }

    /**
     * A reply of one integer, 1 (true) or 0 (false).
     *
     * @throws StoreUnavailableException when it is anything else
     */
    public static boolean flag(Object reply, LuaScript script) {
        if (!(reply instanceof Long answer) || (answer != 0 && answer != 1)) {
            throw misshapen(script, "expected 1 or 0, got " + reply);
        }
        return answer == 1;
    }

    /**
     * A reply of one integer of at least {@code least}.
     *
     * @throws StoreUnavailableException when it is anything else
     */
    public static long atLeast(Object reply, long least, LuaScript script) {
        if (!(reply instanceof Long answer) || answer < least) {
            throw misshapen(script, "expected an integer of at least " + least + ", got " + reply);
        }
        return answer;
    }

    /** {@link #flag(Object, LuaScript)} for one element of an integer reply. */
    public static boolean flag(long value, Object reply, LuaScript script) {
        if (value != 0 && value != 1) {
            throw misshapen(script, "expected 1 or 0 where it answered " + value + ": " + reply);
        }
        return value == 1;
    }

    /** The exception for a reply of the wrong shape: {@code what} says what was expected and what came. */
    public static StoreUnavailableException misshapen(LuaScript script, String what) {
        return new StoreUnavailableException("Lua script " + script.name() + " (" + script.location()
                + ") answered in a shape Sluice does not read: " + what, null);
    }
}
