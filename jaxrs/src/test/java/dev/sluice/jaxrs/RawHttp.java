package dev.sluice.jaxrs;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * HTTP/1.1 over a plain socket, byte for byte, for requests a well-behaved client will not send as written:
 * a method in lower case, {@code //login}, {@code /./login}, {@code %2F}. One request per connection
 * ({@code Connection: close}). Stateless.
 */
final class RawHttp {

    /** Status line, header lines and body of a response. */
    record Response(int status, List<String> headers, String body) {
        @Override
        public String toString() {
            return status + " " + body.strip();
        }
    }

    private RawHttp() {
    }

    /**
     * Sends {@code <method> <target> HTTP/1.1} to the server of {@code base}, with the given header lines
     * ({@code Name: value}), and reads the whole response.
     */
    static Response send(URI base, String method, String target, String... headerLines) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(base.getHost(), base.getPort()), 5_000);
            socket.setSoTimeout(20_000);
            StringBuilder request = new StringBuilder(method).append(' ').append(target).append(" HTTP/1.1\r\n")
                    .append("Host: ").append(base.getHost()).append(':').append(base.getPort()).append("\r\n");
            for (String line : headerLines) {
                request.append(line).append("\r\n");
            }
            if (method.equalsIgnoreCase("POST")) {
                request.append("Content-Length: 0\r\n");
            }
            request.append("Connection: close\r\n\r\n");
            OutputStream out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            return read(socket.getInputStream());
        }
    }

    private static Response read(InputStream in) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        in.transferTo(all);
        String text = all.toString(StandardCharsets.ISO_8859_1);
        int end = text.indexOf("\r\n\r\n");
        String head = end < 0 ? text : text.substring(0, end);
        List<String> lines = new ArrayList<>(List.of(head.split("\r\n")));
        if (lines.isEmpty() || !lines.get(0).startsWith("HTTP/1.1 ")) {
            throw new IOException("not an HTTP/1.1 response: " + head);
        }
        int status = Integer.parseInt(lines.remove(0).substring(9, 12));
        return new Response(status, lines, end < 0 ? "" : text.substring(end + 4));
    }
}
