package dev.sluice.internal.lock;

import dev.sluice.internal.redis.LuaScript;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The Lua scripts of locks and semaphores, bundled or replaced by {@code sluice.script.<name>}. A hand-off is
 * {@code lock-acquire} passed the holder, so that fencing tokens are issued in one script only; a semaphore's
 * hand-over is {@code semaphore-handover}, which leaves {@code semaphore-release} and {@code semaphore-extend} as
 * they are for other users of the permit sets. Only {@link #load} makes them, so a store runs what the
 * configuration names, in tests too. Immutable.
 */
public final class LockScripts {

    private final LuaScript lockAcquire;
    private final LuaScript lockRelease;
    private final LuaScript lockExtend;
    private final LuaScript lockFence;
    private final LuaScript semaphoreAcquire;
    private final LuaScript semaphoreRelease;
    private final LuaScript semaphoreExtend;
    private final LuaScript semaphoreHandover;

    private LockScripts(Function<String, LuaScript> load) {
        lockAcquire = load.apply("lock-acquire");
        lockRelease = load.apply("lock-release");
        lockExtend = load.apply("lock-extend");
        lockFence = load.apply("lock-fence");
        semaphoreAcquire = load.apply("semaphore-acquire");
        semaphoreRelease = load.apply("semaphore-release");
        semaphoreExtend = load.apply("semaphore-extend");
        semaphoreHandover = load.apply("semaphore-handover");
    }

    /**
     * Loads every script, taking operator replacements from {@code overrides} (script name to location, as in
     * {@code SluiceConfig.scripts()}).
     *
     * @throws dev.sluice.SluiceConfigException naming {@code sluice.script.<name>} when a replacement cannot be read
     */
    public static LockScripts load(Map<String, String> overrides) {
        String prefix = LuaScript.configKey("");
        Function<String, Optional<String>> config =
                key -> Optional.ofNullable(overrides.get(key.substring(prefix.length())));
        return new LockScripts(name -> LuaScript.load(name, config));
    }

    /** Every script, for preloading (which also checks that replacements compile). */
    public List<LuaScript> all() {
        return List.of(lockAcquire, lockRelease, lockExtend, lockFence, semaphoreAcquire, semaphoreRelease,
                semaphoreExtend, semaphoreHandover);
    }

    LuaScript lockAcquire() {
        return lockAcquire;
    }

    LuaScript lockRelease() {
        return lockRelease;
    }

    LuaScript lockExtend() {
        return lockExtend;
    }

    LuaScript lockFence() {
        return lockFence;
    }

    LuaScript semaphoreAcquire() {
        return semaphoreAcquire;
    }

    LuaScript semaphoreRelease() {
        return semaphoreRelease;
    }

    LuaScript semaphoreExtend() {
        return semaphoreExtend;
    }

    LuaScript semaphoreHandover() {
        return semaphoreHandover;
    }
}
