package dev.sluice.filter;

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
import java.util.Locale;
import java.util.Optional;

/**
 * HTTP/1.1 over a plain socket, byte for byte, for requests a well-behaved client refuses to send: header values
 * with NUL, bare CR, bytes that are not UTF-8, a method in lower case, {@code //login}. One request per connection ({@code Connection: close}). Stateless.
 */
final class RawHttp {

    /** Status line, header lines and body of a response. */
    record Response(int status, List<String> headers, String body) {
        Optional<String> header(String name) {
            String prefix = name.toLowerCase(Locale.ROOT) + ":";
            return headers.stream().filter(h -> h.toLowerCase(Locale.ROOT).startsWith(prefix))
                    .map(h -> h.substring(prefix.length()).trim()).findFirst();
        }
    }

    private RawHttp() {
    }

    /**
     * Sends {@code GET <pathAndQuery>} to the application at {@code base} with the given raw header lines (each
     * {@code Name: value} without line end, as bytes) and returns the response.
     */
    static Response get(URI base, String pathAndQuery, List<byte[]> headerLines) throws IOException {
        return send(base, "GET", pathAndQuery, headerLines);
    }

    /**
     * Sends {@code <method> <base path><target>} as written (no normalisation, any case) with the given raw
     * header lines; a {@code POST} gets an empty body.
     */
    static Response send(URI base, String method, String target, List<byte[]> headerLines) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(base.getHost(), base.getPort()), 5_000);
            socket.setSoTimeout(20_000);
            ByteArrayOutputStream request = new ByteArrayOutputStream();
            request.writeBytes((method + " " + base.getPath() + target + " HTTP/1.1\r\nHost: " + base.getHost() + ":"
                    + base.getPort() + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
            if (method.equalsIgnoreCase("POST")) {
                request.writeBytes("Content-Length: 0\r\n".getBytes(StandardCharsets.ISO_8859_1));
            }
            for (byte[] line : headerLines) {
                request.writeBytes(line);
                request.writeBytes(new byte[] {'\r', '\n'});
            }
            request.writeBytes("Connection: close\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            OutputStream out = socket.getOutputStream();
            out.write(request.toByteArray());
            out.flush();
            return read(socket.getInputStream());
        }
    }

    /** A header line {@code name: } followed by {@code value} exactly as given. */
    static byte[] header(String name, byte[] value) {
        byte[] prefix = (name + ": ").getBytes(StandardCharsets.ISO_8859_1);
        byte[] line = new byte[prefix.length + value.length];
        System.arraycopy(prefix, 0, line, 0, prefix.length);
        System.arraycopy(value, 0, line, prefix.length, value.length);
        return line;
    }

    private static Response read(InputStream in) throws IOException {
        byte[] all = in.readAllBytes();
        String text = new String(all, StandardCharsets.ISO_8859_1);
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
