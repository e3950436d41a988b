package dev.sluice.sample;

import java.io.IOException;

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * {@code /login}: a stand-in for a login form, the classic target of password guessing. Sluice's
 * servlet filter limits it by the policy {@code login} (declared in {@code web.xml} or in
 * {@code microprofile-config.properties}); this servlet knows nothing about it.
 */
@WebServlet("/login")
public class LoginServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        respond(response, "POST your credentials here\n");
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        respond(response, "welcome\n");
    }

    private static void respond(HttpServletResponse response, String text) throws IOException {
        response.setContentType("text/plain;charset=UTF-8");
        response.getWriter().write(text);
    }
}
