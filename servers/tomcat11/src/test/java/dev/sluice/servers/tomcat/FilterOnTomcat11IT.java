package dev.sluice.servers.tomcat;

import dev.sluice.servers.FilterOnTomcatScenarios;

/**
 * sluice-filter (declared in {@code web.xml}) and sluice-bundle (registered by its web fragment) on embedded
 * Tomcat 11: Servlet 6.1, {@code jakarta.servlet}; the JARs are compiled against Servlet 5.
 */
class FilterOnTomcat11IT extends FilterOnTomcatScenarios {

    @Override
    protected String webAppStartTag() {
        return """
                <web-app xmlns="https://jakarta.ee/xml/ns/jakartaee"
                         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
                         xsi:schemaLocation="https://jakarta.ee/xml/ns/jakartaee https://jakarta.ee/xml/ns/jakartaee/web-app_6_1.xsd"
                         version="6.1">""";
    }
}
