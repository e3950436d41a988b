package dev.sluice.filter;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** The login resource, mapped to {@code /login}: answers {@code served:login}, so a test can tell it ran. */
public class LoginServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    static final String SERVED = "served:login";

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setContentType("text/plain");
        response.getOutputStream().write(SERVED.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        doGet(request, response);
    }
}
