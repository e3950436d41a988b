package dev.sluice.jaxrs;

import dev.sluice.filter.RateLimitFilter;


import io.undertow.Undertow;
import io.undertow.security.idm.Account;
import io.undertow.security.idm.Credential;
import io.undertow.security.idm.IdentityManager;
import io.undertow.security.idm.PasswordCredential;
import io.undertow.servlet.Servlets;
import io.undertow.servlet.api.DeploymentInfo;
import io.undertow.servlet.api.DeploymentManager;
import io.undertow.servlet.api.InstanceFactory;
import io.undertow.servlet.api.LoginConfig;
import io.undertow.servlet.api.ServletContainerInitializerInfo;
import io.undertow.servlet.util.ImmediateInstanceFactory;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.Servlet;
import jakarta.servlet.ServletContainerInitializer;
import jakarta.servlet.ServletException;
import jakarta.ws.rs.core.Application;

import java.net.InetSocketAddress;
import java.net.URI;
import java.security.Principal;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * A JAX-RS runtime deployed as a servlet in Undertow, as on WildFly (RESTEasy) or any servlet container
 * (Jersey's {@code ServletContainer}). Authentication is the servlet container's own: HTTP BASIC against an
 * Undertow identity manager, attempted whenever credentials are sent ({@code PRO_ACTIVE}), so JAX-RS sees the
 * user through {@code HttpServletRequest.getUserPrincipal()} exactly as with a server's security realm.
 *
 * <p>Sluice's servlet filter (unless {@link #withoutServletFilter()}) is mapped to {@code /*} in front of the
 * JAX-RS servlet, as its web fragment maps it, and configured with the application's {@code sluice.*} properties
 * as context-params.
 */
final class UndertowServletContainer implements JaxrsContainer {

    private final String name;
    /** The deployment of an application, with or without Sluice's servlet filter. */
    private final BiFunction<Application, Boolean, DeploymentInfo> servlet;
    private final boolean servletFilter;

    private UndertowServletContainer(String name, BiFunction<Application, Boolean, DeploymentInfo> servlet) {
        this(name, servlet, true);
    }

    private UndertowServletContainer(String name, BiFunction<Application, Boolean, DeploymentInfo> servlet,
                                     boolean servletFilter) {
        this.name = name;
        this.servlet = servlet;
        this.servletFilter = servletFilter;
    }

    /** This runtime without Sluice's servlet filter, as with {@code sluice-jaxrs} alone in {@code WEB-INF/lib}. */
    UndertowServletContainer withoutServletFilter() {
        return new UndertowServletContainer(name, servlet, false);
    }

    /** Jersey's {@code ServletContainer} over the application. */
    static UndertowServletContainer jersey() {
        return new UndertowServletContainer("Jersey", (app, filter) -> deployment(app,
                new org.glassfish.jersey.servlet.ServletContainer(
                        org.glassfish.jersey.server.ResourceConfig.forApplication(app)), null, filter));
    }

    /** RESTEasy's servlet dispatcher over the application, the way RESTEasy's embedded Undertow server wires it. */
    static UndertowServletContainer resteasy() {
        return new UndertowServletContainer("RESTEasy", (app, filter) -> {
            org.jboss.resteasy.spi.ResteasyDeployment deployment = new org.jboss.resteasy.core.ResteasyDeploymentImpl();
            deployment.setApplication(app);
            return deployment(app, new org.jboss.resteasy.plugins.server.servlet.HttpServlet30Dispatcher(), deployment,
                    filter);
        });
    }

    private static DeploymentInfo deployment(Application app, Servlet dispatcher, Object resteasyDeployment,
                                             boolean servletFilter) {
        InstanceFactory<Servlet> instance = new ImmediateInstanceFactory<>(dispatcher);
        DeploymentInfo info = Servlets.deployment()
                .setClassLoader(UndertowServletContainer.class.getClassLoader())
                .setContextPath("/")
                .setDeploymentName("sluice-test")
                .addServlet(Servlets.servlet("jaxrs", dispatcher.getClass(), instance)
                        .addMapping("/*")
                        .setLoadOnStartup(1)
                        .setAsyncSupported(true))
                .setLoginConfig(new LoginConfig("BASIC", "sluice"))
                .setIdentityManager(new Users());
        if (servletFilter) {
            info.addFilter(Servlets.filter("sluice", RateLimitFilter.class).setAsyncSupported(true))
                    .addFilterUrlMapping("sluice", "/*", DispatcherType.REQUEST);
        }
        // A server would run every initializer listed in META-INF/services of WEB-INF/lib jars; embedded
        // Undertow runs those it is given, so give it Sluice's, found the way a server finds it.
        for (ServletContainerInitializer initializer : ServiceLoader.load(ServletContainerInitializer.class,
                UndertowServletContainer.class.getClassLoader())) {
            if (initializer.getClass().getName().startsWith("dev.sluice.")) {
                info.addServletContainerInitializer(new ServletContainerInitializerInfo(initializer.getClass(),
                        new ImmediateInstanceFactory<>(initializer), Set.of()));
            }
        }
        // The servlet filter reads context-params where JAX-RS reads the application's properties: give both
        // the same settings, as one MicroProfile Config would.
        app.getProperties().forEach((name, value) -> info.addInitParameter(name, value.toString()));
        if (resteasyDeployment != null) {
            info.addServletContextAttribute(org.jboss.resteasy.spi.ResteasyDeployment.class.getName(),
                    resteasyDeployment);
        }
        return info;
    }

    @Override
    public Deployment deploy(Application application) throws Exception {
        DeploymentInfo info = servlet.apply(application, servletFilter);
        DeploymentManager manager = Servlets.newContainer().addDeployment(info);
        manager.deploy();
        Undertow server;
        try {
            server = Undertow.builder().addHttpListener(0, "127.0.0.1").setHandler(manager.start()).build();
        } catch (ServletException | RuntimeException e) {
            manager.undeploy();
            throw e;
        }
        server.start();
        int port = ((InetSocketAddress) server.getListenerInfo().get(0).getAddress()).getPort();
        URI base = URI.create("http://127.0.0.1:" + port + "/");
        return new Deployment() {
            @Override
            public URI base() {
                return base;
            }

            @Override
            public void close() {
                try {
                    manager.stop();
                } catch (ServletException e) {
                    throw new IllegalStateException(e);
                } finally {
                    manager.undeploy();
                    server.stop();
                }
            }
        };
    }

    @Override
    public boolean servlet() {
        return true;
    }

    @Override
    public String toString() {
        return name + " on Undertow (servlet" + (servletFilter ? ")" : ", without Sluice's servlet filter)");
    }

    /** The container's user store: {@link #USERS}, each with {@link #PASSWORD}. */
    private static final class Users implements IdentityManager {
        @Override
        public Account verify(Account account) {
            return account;
        }

        @Override
        public Account verify(String id, Credential credential) {
            if (USERS.contains(id) && credential instanceof PasswordCredential password
                    && PASSWORD.equals(new String(password.getPassword()))) {
                return new UserAccount(id);
            }
            return null;
        }

        @Override
        public Account verify(Credential credential) {
            return null;
        }
    }

    private record UserAccount(String name) implements Account {
        private static final long serialVersionUID = 1L;

        @Override
        public Principal getPrincipal() {
            return this::name;
        }

        @Override
        public Set<String> getRoles() {
            return Set.of("user");
        }
    }
}
