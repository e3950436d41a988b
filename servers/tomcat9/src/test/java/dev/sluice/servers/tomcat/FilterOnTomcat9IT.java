package dev.sluice.servers.tomcat;

import dev.sluice.servers.FilterOnTomcatScenarios;

/**
 * sluice-filter-javax (declared in {@code web.xml}) and sluice-bundle-javax (registered by its web fragment)
 * on embedded Tomcat 9: Servlet 4, {@code javax.servlet}.
 */
class FilterOnTomcat9IT extends FilterOnTomcatScenarios {

    @Override
    protected String webAppStartTag() {
        return """
                <web-app xmlns="http://xmlns.jcp.org/xml/ns/javaee"
                         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
                         xsi:schemaLocation="http://xmlns.jcp.org/xml/ns/javaee http://xmlns.jcp.org/xml/ns/javaee/web-app_4_0.xsd"
                         version="4.0">""";
    }
}
