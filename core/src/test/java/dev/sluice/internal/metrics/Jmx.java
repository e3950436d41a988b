package dev.sluice.internal.metrics;

import javax.management.JMException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/** Reads Sluice's MBeans from the platform MBean server the way a JMX console does. */
final class Jmx {

    static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();

    private Jmx() {
    }

    static ObjectName name(String type, String app, String name) {
        return JmxExporter.objectName(type, app, name);
    }

    static Object attribute(String type, String app, String name, String attribute) {
        try {
            return SERVER.getAttribute(name(type, app, name), attribute);
        } catch (JMException e) {
            throw new AssertionError("cannot read " + attribute + " of " + name(type, app, name), e);
        }
    }

    static long count(String type, String app, String name, String attribute) {
        return (Long) attribute(type, app, name, attribute);
    }

    /** Every Sluice MBean of {@code app}, as canonical ObjectName strings. */
    static Set<String> names(String app) {
        try {
            return SERVER.queryNames(new ObjectName("dev.sluice:app=" + JmxExporter.value(app) + ",*"), null).stream()
                    .map(ObjectName::getCanonicalName).collect(Collectors.toCollection(TreeSet::new));
        } catch (JMException e) {
            throw new AssertionError(e);
        }
    }

    /** The values of the {@code name} key of {@code app}'s MBeans of {@code type}. */
    static Set<String> nameValues(String app, String type) {
        try {
            return SERVER.queryNames(new ObjectName("dev.sluice:type=" + type + ",app=" + JmxExporter.value(app) + ",*"), null)
                    .stream().map(n -> unquote(n.getKeyProperty("name"))).collect(Collectors.toCollection(TreeSet::new));
        } catch (JMException e) {
            throw new AssertionError(e);
        }
    }

    private static String unquote(String value) {
        return value.startsWith("\"") ? ObjectName.unquote(value) : value;
    }

    /** Every attribute of every Sluice MBean of {@code app}, as a console would list them (for the docs' dump). */
    static String dump(String app) {
        StringBuilder text = new StringBuilder();
        for (String canonical : names(app)) {
            try {
                ObjectName name = new ObjectName(canonical);
                text.append(name).append('\n');
                Map<String, Object> values = new TreeMap<>();
                for (MBeanAttributeInfo info : SERVER.getMBeanInfo(name).getAttributes()) {
                    values.put(info.getName(), SERVER.getAttribute(name, info.getName()));
                }
                values.forEach((k, v) -> text.append("    ").append(k).append(" = ").append(v).append('\n'));
            } catch (JMException e) {
                throw new AssertionError(e);
            }
        }
        return text.toString();
    }
}
