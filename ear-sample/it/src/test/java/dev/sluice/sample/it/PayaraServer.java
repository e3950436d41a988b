package dev.sluice.sample.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.sluice.test.RedisServer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A Payara Server domain for the test class, driven with {@code asadmin} the way an administrator
 * would: a fresh domain on its own ports, Sluice's Redis set through Payara's MicroProfile Config
 * ({@code set-config-property}), users alice and bob in the {@code file} realm, then the EAR.
 *
 * <p>Payara Micro cannot deploy EARs and the Payara Server Arquillian adapter for Jakarta EE is not
 * published on Maven Central, hence this extension. Register it as {@code @Order(3)}, after the
 * Redis fixture. Not thread-safe.
 */
final class PayaraServer implements BeforeAllCallback, AfterAllCallback {

    private static final String DOMAIN = "sluice-it";
    private static final long COMMAND_TIMEOUT_MINUTES = 5;

    private final RedisServer redis;
    private final Path home = Path.of(System.getProperty("payara.server.home", "target/payara6"));
    private final int portBase = Integer.getInteger("sluice.it.payara-server.port-base", 28000);
    private final List<String> deployments = new ArrayList<>();
    private boolean started;

    PayaraServer(RedisServer redis) {
        this.redis = redis;
    }

    /** Deploys this archive once the domain is up (in the order added). */
    PayaraServer deploy(Path archive) {
        deployments.add(archive.toAbsolutePath().toString());
        return this;
    }

    /** {@code http://127.0.0.1:<http port>/}: create-domain puts HTTP at port base + 80. */
    URI root() {
        return URI.create("http://127.0.0.1:" + (portBase + 80) + "/");
    }

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        Path domainDir = home.resolve("glassfish/domains").resolve(DOMAIN);
        if (Files.exists(domainDir)) {
            // A run that was killed leaves its domain up, holding the ports: stop it first.
            localIgnoringFailure("stop-domain", DOMAIN);
            local("delete-domain", DOMAIN);
        }
        local("create-domain", "--nopassword=true", "--portbase=" + portBase, DOMAIN);
        local("start-domain", DOMAIN);
        started = true;

        remote("set-config-property", "--source=domain",
                "--propertyName=sluice.redis.uri", "--propertyValue=" + redis.uri());
        for (String user : List.of("alice", "bob")) {
            Path passwordFile = Files.createTempFile("payara-" + user, ".txt");
            Files.writeString(passwordFile, "AS_ADMIN_USERPASSWORD=" + user + "-pw\n", StandardCharsets.UTF_8);
            try {
                // --passwordfile is an option of asadmin itself, so it goes before the subcommand.
                remote(List.of("--passwordfile=" + passwordFile), "create-file-user", "--groups=user", user);
            } finally {
                Files.delete(passwordFile);
            }
        }
        for (String archive : deployments) {
            remote("deploy", "--force=true", archive);
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (started) {
            local("stop-domain", DOMAIN);
            started = false;
        }
    }

    private void local(String... command) {
        List<String> line = new ArrayList<>(List.of("--interactive=false"));
        line.addAll(List.of(command));
        asadmin(line);
    }

    private void localIgnoringFailure(String... command) {
        try {
            local(command);
        } catch (IllegalStateException e) {
            // nothing to stop
        }
    }

    private void remote(String... command) {
        remote(List.of(), command);
    }

    private void remote(List<String> asadminOptions, String... command) {
        List<String> line = new ArrayList<>(List.of("--interactive=false", "--host=127.0.0.1",
                "--port=" + (portBase + 48), "--user=admin"));
        line.addAll(asadminOptions);
        line.addAll(List.of(command));
        asadmin(line);
    }

    private void asadmin(List<String> arguments) {
        List<String> command = new ArrayList<>();
        command.add(home.resolve("bin/asadmin").toString());
        command.addAll(arguments);
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            process.getOutputStream().close();
            byte[] output = process.getInputStream().readAllBytes();
            if (!process.waitFor(COMMAND_TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new IllegalStateException("asadmin " + arguments + " did not finish in "
                        + COMMAND_TIMEOUT_MINUTES + " minutes");
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException("asadmin " + arguments + " exited with " + process.exitValue()
                        + ":\n" + new String(output, StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not run asadmin " + arguments, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running asadmin " + arguments, e);
        }
    }
}
