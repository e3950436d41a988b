package dev.sluice.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on a free loopback port that a test puts between clients and a server (Redis, or a replica's link to
 * its master) to inject network faults:
 *
 * <ul>
 *   <li>{@link #latency}: every chunk is held that long before it is passed on, in both directions;</li>
 *   <li>{@link #dropReplies}: requests still reach the server, which runs them, but its replies are swallowed (the
 *       "lost reply": the client times out not knowing whether its command ran);</li>
 *   <li>{@link #stall}: nothing is passed on in either direction until the stall ends (a frozen link that still
 *       looks open: a replica so stalled falls behind its master without noticing);</li>
 *   <li>{@link #cutAll}: every open connection is closed at once;</li>
 *   <li>{@link #refuse}: new connections are reset as soon as they are accepted.</li>
 * </ul>
 *
 * <p>Faults apply to open connections from the next chunk on. {@link #heal()} switches them all off. Two daemon
 * threads per connection. Thread-safe; close it to stop accepting and close every connection.
 */
public final class FaultyProxy implements AutoCloseable {

    private final String targetHost;
    private final int targetPort;
    private final ServerSocket server;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong swallowedBytes = new AtomicLong();
    private final AtomicLong heldChunks = new AtomicLong();
    private final Object stallMonitor = new Object();
    private volatile long latencyNanos;
    private volatile boolean dropReplies;
    private volatile boolean refuse;
    private volatile boolean stalled;
    private volatile boolean closed;

    private FaultyProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::acceptLoop, "faulty-proxy-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** A proxy to {@code targetHost:targetPort}, passing everything through until told otherwise. */
    public static FaultyProxy start(String targetHost, int targetPort) {
        try {
            return new FaultyProxy(targetHost, targetPort);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a proxy port", e);
        }
    }

    public String host() {
        return "127.0.0.1";
    }

    public int port() {
        return server.getLocalPort();
    }

    /** {@code redis://127.0.0.1:<port>}. */
    public String uri() {
        return "redis://" + host() + ":" + port();
    }

    /** Holds every chunk {@code latency} before passing it on ({@link Duration#ZERO}: none). */
    public void latency(Duration latency) {
        latencyNanos = latency.toNanos();
    }

    /** While on, the server's replies are read and thrown away; requests still reach it. */
    public void dropReplies(boolean on) {
        dropReplies = on;
    }

    /** While on, nothing is passed on in either direction; what was sent meanwhile follows when it ends. */
    public void stall(boolean on) {
        synchronized (stallMonitor) {
            stalled = on;
            stallMonitor.notifyAll();
        }
    }

    /** While on, new connections are reset at once. */
    public void refuse(boolean on) {
        refuse = on;
    }

    /** Closes every open connection (both sides). */
    public void cutAll() {
        // The connections open now, not one opened while they are being closed: iterating the live set could reach
        // the fresh connection a client opens as soon as its own was cut (its retry) and cut that too.
        for (Socket socket : List.copyOf(sockets)) {
            closeQuietly(socket);
        }
    }

    /** Switches every fault off (open connections stay open). */
    public void heal() {
        latency(Duration.ZERO);
        dropReplies(false);
        refuse(false);
        stall(false);
    }

    /** Connections accepted and passed on so far. */
    public long accepted() {
        return accepted.get();
    }

    /** Connections reset by {@link #refuse}. */
    public long refused() {
        return refused.get();
    }

    /** Chunks received and held back by a {@link #stall} right now. */
    public long heldChunks() {
        return heldChunks.get();
    }

    /** Bytes of replies thrown away by {@link #dropReplies}. */
    public long swallowedBytes() {
        return swallowedBytes.get();
    }

    @Override
    public void close() {
        closed = true;
        stall(false);
        closeQuietly(server);
        cutAll();
    }

    @Override
    public String toString() {
        return "FaultyProxy[" + host() + ":" + port() + " -> " + targetHost + ":" + targetPort + "]";
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return; // closed
            }
            if (refuse) {
                refused.incrementAndGet();
                reset(client);
                continue;
            }
            Socket upstream = new Socket();
            try {
                upstream.connect(new InetSocketAddress(targetHost, targetPort), 1000);
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
            } catch (IOException e) {
                // The target is down: the client sees its connection reset, as it would connecting directly.
                closeQuietly(upstream);
                reset(client);
                continue;
            }
            accepted.incrementAndGet();
            sockets.add(client);
            sockets.add(upstream);
            pump(client, upstream, false);
            pump(upstream, client, true);
        }
    }

    private void pump(Socket from, Socket to, boolean replies) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    long latency = latencyNanos;
                    if (latency > 0) {
                        TimeUnit.NANOSECONDS.sleep(latency); // the injected latency itself
                    }
                    awaitUnstalled();
                    if (replies && dropReplies) {
                        swallowedBytes.addAndGet(n);
                        continue;
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException | InterruptedException e) {
                // closed by either side or by cutAll
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                sockets.remove(from);
                sockets.remove(to);
            }
        }, "faulty-proxy-" + port() + (replies ? "-replies" : "-requests"));
        thread.setDaemon(true);
        thread.start();
    }

    private void awaitUnstalled() throws InterruptedException {
        synchronized (stallMonitor) {
            if (!stalled || closed) {
                return;
            }
            heldChunks.incrementAndGet();
            try {
                while (stalled && !closed) {
                    stallMonitor.wait();
                }
            } finally {
                heldChunks.decrementAndGet();
            }
        }
    }

    private static void reset(Socket socket) {
        try {
            socket.setSoLinger(true, 0); // RST rather than FIN: a refused connection, not a polite close
        } catch (SocketException ignored) {
            // closing anyway
        }
        closeQuietly(socket);
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception ignored) {
            // already closed
        }
    }
}
