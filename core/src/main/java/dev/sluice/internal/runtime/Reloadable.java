package dev.sluice.internal.runtime;

/**
 * Something that applies policies read from configuration (a servlet filter, a JAX-RS application) and can
 * read them again: registered with {@link ConfigReloads}, which calls it on every refresh and JMX
 * {@code reload()}. Implementations are thread-safe; the calls of one runtime never overlap.
 */
public interface Reloadable {

    /** How logs name it: {@code servlet filter 'sluice' in /shop}, {@code JAX-RS application}. */
    String describe();

    /**
     * Reads the configuration again, validates all of it, and only then swaps the policies in force at once.
     *
     * @return the policies that changed (empty when none did) and the settings that changed but need a redeploy
     * @throws dev.sluice.SluiceConfigException naming key, value and accepted form when a value is bad; nothing
     *                                          was changed then
     */
    ConfigReloads.Outcome reload();
}
