package dev.sluice.internal.http;

import dev.sluice.RequestView;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** A request as an adapter would present it to the gate, built field by field. */
public final class TestRequest implements RequestView {

    private String method = "GET";
    private String path = "/";
    private String principal;
    private String clientAddress = "192.0.2.1";
    private String clientIp;
    private Set<String> roles = Set.of();
    private final Map<String, String> headers = new HashMap<>();
    private final Map<String, String> queries = new HashMap<>();

    public static TestRequest get(String path) {
        TestRequest r = new TestRequest();
        r.path = path;
        return r;
    }

    TestRequest method(String m) {
        method = m;
        return this;
    }

    public TestRequest from(String address) {
        clientAddress = address;
        return this;
    }

    /** A client whose full address differs from its {@link #clientAddress()} (an IPv6 network). */
    TestRequest fromIp(String address) {
        clientIp = address;
        return this;
    }

    TestRequest roles(String... names) {
        roles = Set.of(names);
        return this;
    }

    TestRequest user(String name) {
        principal = name;
        return this;
    }

    TestRequest header(String name, String value) {
        headers.put(name, value);
        return this;
    }

    TestRequest query(String name, String value) {
        queries.put(name, value);
        return this;
    }

    @Override
    public String method() {
        return method;
    }

    @Override
    public String path() {
        return path;
    }

    @Override
    public Optional<String> header(String name) {
        return Optional.ofNullable(headers.get(name));
    }

    @Override
    public Optional<String> queryParameter(String name) {
        return Optional.ofNullable(queries.get(name));
    }

    @Override
    public Optional<String> pathParameter(String name) {
        return Optional.empty();
    }

    @Override
    public Optional<String> principal() {
        return Optional.ofNullable(principal);
    }

    @Override
    public String clientAddress() {
        return clientAddress;
    }

    @Override
    public String clientIp() {
        return clientIp == null ? RequestView.super.clientIp() : clientIp;
    }

    @Override
    public boolean isUserInRole(String role) {
        return roles.contains(role);
    }

    @Override
    public <T> T unwrap(Class<T> type) {
        throw new IllegalArgumentException(type.getName());
    }
}
