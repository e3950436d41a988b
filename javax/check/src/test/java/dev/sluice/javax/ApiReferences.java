package dev.sluice.javax;

import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Resolves what a JAR uses from a set of APIs (by package prefix) against the API JARs on this test's
 * class path: every class it names, and every method and field it calls or reads on them, looked up by
 * name and descriptor through superclasses and interfaces, as the JVM's linker would.
 */
final class ApiReferences {

    /** A class name in a descriptor or signature: {@code Ljavax/servlet/Filter;}. */
    private static final Pattern IN_DESCRIPTOR = Pattern.compile("L([\\w/$]+)[;<]");

    private final List<String> prefixes;
    private final ClassLoader apis = ApiReferences.class.getClassLoader();

    /** @param prefixes internal-form package prefixes, such as {@code javax/servlet/} */
    ApiReferences(List<String> prefixes) {
        this.prefixes = prefixes;
    }

    /** What {@code jar} uses from the APIs and cannot be found in them, one line each. */
    Set<String> unresolved(ScannedJar jar) {
        Set<String> missing = new TreeSet<>();
        jar.classes.forEach((entry, classFile) -> {
            for (String name : classNames(classFile)) {
                if (load(name) == null) {
                    missing.add(entry + " uses class " + name.replace('/', '.'));
                }
            }
            for (ClassFile.MemberRef ref : classFile.members()) {
                if (covered(ref.owner()) && !exists(ref)) {
                    missing.add(entry + " uses " + ref);
                }
            }
        });
        return missing;
    }

    /** How many distinct members of the APIs the JAR uses: shows that the check looked at something. */
    int memberCount(ScannedJar jar) {
        Set<String> seen = new HashSet<>();
        jar.classes.values().forEach(c -> c.members().stream()
                .filter(ref -> covered(ref.owner())).forEach(ref -> seen.add(ref.toString())));
        return seen.size();
    }

    private Set<String> classNames(ClassFile classFile) {
        Set<String> names = new TreeSet<>();
        for (String s : classFile.strings()) {
            if (covered(s) && s.matches("[\\w/$]+")) {
                names.add(s);
            }
            Matcher m = IN_DESCRIPTOR.matcher(s);
            while (m.find()) {
                if (covered(m.group(1))) {
                    names.add(m.group(1));
                }
            }
        }
        return names;
    }

    private boolean covered(String internalName) {
        return prefixes.stream().anyMatch(internalName::startsWith);
    }

    private Class<?> load(String internalName) {
        try {
            return Class.forName(internalName.replace('/', '.'), false, apis);
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
    }

    private boolean exists(ClassFile.MemberRef ref) {
        Class<?> owner = load(ref.owner());
        if (owner == null) {
            return false;
        }
        if (ref.name().equals("<init>")) {
            for (Constructor<?> c : owner.getDeclaredConstructors()) {
                if (MethodType.methodType(void.class, c.getParameterTypes()).toMethodDescriptorString()
                        .equals(ref.descriptor())) {
                    return true;
                }
            }
            return false;
        }
        for (Class<?> type : hierarchy(owner)) {
            if (ref.kind() == ClassFile.MemberRef.Kind.FIELD) {
                for (Field f : type.getDeclaredFields()) {
                    if (f.getName().equals(ref.name()) && f.getType().descriptorString().equals(ref.descriptor())) {
                        return true;
                    }
                }
            } else {
                for (Method m : type.getDeclaredMethods()) {
                    if (m.getName().equals(ref.name()) && MethodType.methodType(m.getReturnType(),
                            m.getParameterTypes()).toMethodDescriptorString().equals(ref.descriptor())) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private static List<Class<?>> hierarchy(Class<?> start) {
        List<Class<?>> out = new ArrayList<>();
        Deque<Class<?>> todo = new ArrayDeque<>(List.of(start, Object.class));
        while (!todo.isEmpty()) {
            Class<?> c = todo.pop();
            if (out.contains(c)) {
                continue;
            }
            out.add(c);
            if (c.getSuperclass() != null) {
                todo.add(c.getSuperclass());
            }
            todo.addAll(List.of(c.getInterfaces()));
        }
        return out;
    }
}
