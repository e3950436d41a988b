package dev.sluice.internal.lock;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Serves a {@link FencingChecker} on a loopback port to worker JVMs, one text line per request and per reply:
 *
 * <pre>
 * BEGIN id LOCK|PERMIT key   ABORT id   ENTER id token   EXIT id   REPORT id held(0|1) lostOnClose(0|1)
 * PREAD id -> value          PWRITE id value
 * FREAD id -> value|REFUSED  FWRITE id value -> OK|REFUSED
 * HOLD id                    (answers when the trap, if it caught this holder, is released)
 * </pre>
 *
 * A malformed request is answered {@code ERR message}. One thread per connection. Close it to stop.
 */
final class CheckerServer implements AutoCloseable {

    private final FencingChecker checker;
    private final ServerSocket server;
    private final Set<Socket> clients = ConcurrentHashMap.newKeySet();

    CheckerServer(FencingChecker checker) {
        this.checker = checker;
        try {
            this.server = new ServerSocket(0, 64, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Thread acceptor = new Thread(this::acceptLoop, "checker-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return server.getLocalPort();
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // closing
        }
        for (Socket client : clients) {
            try {
                client.close();
            } catch (IOException ignored) {
                // closing
            }
        }
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                client.setTcpNoDelay(true);
                clients.add(client);
                Thread thread = new Thread(() -> serve(client), "checker-" + client.getPort());
                thread.setDaemon(true);
                thread.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket client) {
        try (client;
             BufferedReader in = new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8));
             Writer out = new OutputStreamWriter(client.getOutputStream(), StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                String reply;
                try {
                    reply = answer(line.split(" "));
                } catch (RuntimeException e) {
                    reply = "ERR " + e;
                }
                out.write(reply);
                out.write('\n');
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            // the worker went away
        } finally {
            clients.remove(client);
        }
    }

    private String answer(String[] w) throws InterruptedException {
        switch (w[0]) {
            case "BEGIN":
                checker.begin(w[1], FencingChecker.Kind.valueOf(w[2]), w[3]);
                return "OK";
            case "ABORT":
                checker.abort(w[1]);
                return "OK";
            case "ENTER":
                checker.enter(w[1], Long.parseLong(w[2]));
                return "OK";
            case "EXIT":
                checker.exit(w[1]);
                return "OK";
            case "REPORT":
                checker.report(w[1], "1".equals(w[2]), "1".equals(w[3]));
                return "OK";
            case "PREAD":
                return Long.toString(checker.plainRead(w[1]));
            case "PWRITE":
                checker.plainWrite(w[1], Long.parseLong(w[2]));
                return "OK";
            case "FREAD":
                Optional<Long> value = checker.fencedRead(w[1]);
                return value.map(String::valueOf).orElse("REFUSED");
            case "FWRITE":
                return checker.fencedWrite(w[1], Long.parseLong(w[2])) ? "OK" : "REFUSED";
            case "HOLD":
                checker.hold(w[1]);
                return "OK";
            default:
                throw new IllegalArgumentException("unknown request " + w[0]);
        }
    }
}
