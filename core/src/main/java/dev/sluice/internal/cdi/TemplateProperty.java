package dev.sluice.internal.cdi;

import java.lang.reflect.AccessibleObject;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;

/**
 * One step of a key template's property path ({@code id} in {@code {0.id}}): a record component, a getter or
 * a public field of the static type at that step, resolved once when the template is compiled. Immutable and
 * thread-safe.
 */
final class TemplateProperty {

    private final Member member;
    private final Class<?> type;

    private TemplateProperty(Member member, Class<?> type) {
        this.member = member;
        this.type = type;
    }

    /**
     * The property {@code name} of {@code owner}: its record component, else {@code getName()}, else
     * {@code isName()} returning a boolean, else a public instance field.
     *
     * @param path the placeholder up to and including this step, for messages ({@code {0.id}})
     * @throws IllegalArgumentException when {@code owner} has no such property or Sluice may not read it
     */
    static TemplateProperty resolve(Class<?> owner, String name, String path) {
        Member member = find(owner, name);
        if (member == null) {
            String cap = Character.toUpperCase(name.charAt(0)) + name.substring(1);
            Set<String> existing = names(owner);
            throw new IllegalArgumentException(path + ": " + owner.getName() + " has no property " + name
                    + (existing.isEmpty() ? "; it has no properties" : "; its properties are: " + String.join(", ", existing))
                    + " (looked for a record component " + name + ", get" + cap + "(), is" + cap
                    + "() and a public field " + name + ")");
        }
        // Public members of a non-public class (a nested record, a package-private entity) need this to be read
        // from Sluice's package; on the class path it always succeeds.
        if (!((AccessibleObject) member).trySetAccessible()
                && !Modifier.isPublic(member.getDeclaringClass().getModifiers())) {
            throw new IllegalArgumentException(path + ": " + member + " is not accessible to Sluice; make "
                    + member.getDeclaringClass().getName() + " public or open its package");
        }
        Class<?> type = member instanceof Method m ? m.getReturnType() : ((Field) member).getType();
        return new TemplateProperty(member, type);
    }

    private static Member find(Class<?> owner, String name) {
        if (owner.isPrimitive() || owner.isArray()) {
            return null;
        }
        if (owner.isRecord()) {
            for (RecordComponent component : owner.getRecordComponents()) {
                if (component.getName().equals(name)) {
                    return component.getAccessor();
                }
            }
        }
        String cap = Character.toUpperCase(name.charAt(0)) + name.substring(1);
        Method getter = publicMethod(owner, "get" + cap);
        if (getter != null && getter.getReturnType() != void.class) {
            return getter;
        }
        Method is = publicMethod(owner, "is" + cap);
        if (is != null && (is.getReturnType() == boolean.class || is.getReturnType() == Boolean.class)) {
            return is;
        }
        try {
            Field field = owner.getField(name);
            return Modifier.isStatic(field.getModifiers()) ? null : field;
        } catch (NoSuchFieldException e) {
            return null;
        }
    }

    /**
     * The names {@link #find} resolves on {@code owner}, sorted: what a user can write instead of a missing one
     * ({@code getIdString()} is {@code idString}).
     */
    private static Set<String> names(Class<?> owner) {
        Set<String> names = new TreeSet<>();
        if (owner.isPrimitive() || owner.isArray()) {
            return names;
        }
        if (owner.isRecord()) {
            Arrays.stream(owner.getRecordComponents()).map(RecordComponent::getName).forEach(names::add);
        }
        for (Method m : owner.getMethods()) {
            if (Modifier.isStatic(m.getModifiers()) || m.getParameterCount() != 0 || m.getDeclaringClass() == Object.class) {
                continue;
            }
            String n = m.getName();
            if (n.length() > 3 && n.startsWith("get") && m.getReturnType() != void.class) {
                names.add(decapitalize(n.substring(3)));
            } else if (n.length() > 2 && n.startsWith("is")
                    && (m.getReturnType() == boolean.class || m.getReturnType() == Boolean.class)) {
                names.add(decapitalize(n.substring(2)));
            }
        }
        for (Field f : owner.getFields()) {
            if (!Modifier.isStatic(f.getModifiers())) {
                names.add(f.getName());
            }
        }
        return names;
    }

    /** {@code IdString} to {@code idString}; {@code URL} stays {@code URL} (both resolve, as find capitalizes). */
    private static String decapitalize(String name) {
        if (name.length() > 1 && Character.isUpperCase(name.charAt(1))) {
            return name;
        }
        return Character.toLowerCase(name.charAt(0)) + name.substring(1);
    }

    private static Method publicMethod(Class<?> owner, String name) {
        try {
            Method m = owner.getMethod(name);
            return Modifier.isStatic(m.getModifiers()) ? null : m;
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    /** The static type of the property's values. */
    Class<?> type() {
        return type;
    }

    /** The property's value on {@code target} (not null); a getter's own unchecked exception passes through. */
    Object read(Object target) {
        try {
            return member instanceof Method m ? m.invoke(target) : ((Field) member).get(target);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw new IllegalArgumentException(member + " threw " + e.getCause(), e.getCause());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(member + " was made accessible when the template was compiled", e);
        }
    }
}
