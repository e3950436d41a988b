package dev.sluice.filter;

/** Fragments of {@code web.xml} for the tests. */
final class Descriptors {

    private Descriptors() {
    }

    /** {@code <context-param>}s from name/value pairs: the application's configuration. */
    static String contextParams(String... pairs) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < pairs.length; i += 2) {
            out.append("<context-param><param-name>").append(pairs[i]).append("</param-name><param-value>")
                    .append(pairs[i + 1]).append("</param-value></context-param>\n");
        }
        return out.toString();
    }

    /** The filter declared in {@code web.xml} under {@code name}, mapped to {@code /*}, with init-params. */
    static String declaredFilter(String name, String... initParams) {
        StringBuilder out = new StringBuilder("<filter><filter-name>").append(name).append("</filter-name>")
                .append("<filter-class>dev.sluice.filter.RateLimitFilter</filter-class>")
                .append("<async-supported>true</async-supported>\n");
        for (int i = 0; i < initParams.length; i += 2) {
            out.append("<init-param><param-name>").append(initParams[i]).append("</param-name><param-value>")
                    .append(initParams[i + 1]).append("</param-value></init-param>\n");
        }
        return out.append("</filter>\n<filter-mapping><filter-name>").append(name)
                .append("</filter-name><url-pattern>/*</url-pattern></filter-mapping>\n").toString();
    }
}
