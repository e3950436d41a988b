package dev.sluice.internal.config;

/**
 * HTTP method names as policies compare them. Method names are case-sensitive in HTTP, but servers and
 * JAX-RS runtimes do not agree (RESTEasy runs a {@code @POST} method for {@code post}), so a policy must
 * see {@code post} as {@code POST} or a client could step around it by changing case. Stateless and
 * thread-safe.
 */
public final class HttpMethods {

    private HttpMethods() {
    }

    /**
     * {@code method} with ASCII letters upper-cased and nothing else changed (Java's full case mapping would
     * turn the dotless {@code ı} into {@code I}); the same instance when it is upper case already.
     */
    public static String upperCase(String method) {
        if (method == null) {
            return null;
        }
        for (int i = 0; i < method.length(); i++) {
            char c = method.charAt(i);
            if (c >= 'a' && c <= 'z') {
                char[] chars = method.toCharArray();
                for (int j = i; j < chars.length; j++) {
                    if (chars[j] >= 'a' && chars[j] <= 'z') {
                        chars[j] = (char) (chars[j] - ('a' - 'A'));
                    }
                }
                return new String(chars);
            }
        }
        return method;
    }
}
