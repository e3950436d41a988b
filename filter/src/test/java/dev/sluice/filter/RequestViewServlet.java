package dev.sluice.filter;

import dev.sluice.internal.config.ConfigSources;
import dev.sluice.internal.config.SluiceConfigLoader;
import dev.sluice.internal.http.ClientAddress;

import jakarta.servlet.ServletConfig;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

/**
 * Answers {@code <method> <client address>} as the filter's {@link ServletRequestView} sees the request, under the
 * application's {@code sluice.*} context-params, so that tests check the view on a real container's request.
 */
public class RequestViewServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    private transient ClientAddress clientAddress;

    @Override
    public void init(ServletConfig config) {
        Map<String, String> params = new HashMap<>();
        for (String name : Collections.list(config.getServletContext().getInitParameterNames())) {
            params.put(name, config.getServletContext().getInitParameter(name));
        }
        clientAddress = ClientAddress.of(SluiceConfigLoader.load(ConfigSources.of(params)));
    }

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        ServletRequestView view = new ServletRequestView(request, ServletRequestView.pathWithinApplication(request),
                clientAddress);
        response.setContentType("text/plain");
        response.getOutputStream().write((view.method() + " " + view.clientAddress()).getBytes(StandardCharsets.UTF_8));
    }
}
