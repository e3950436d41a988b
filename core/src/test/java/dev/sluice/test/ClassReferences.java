package dev.sluice.test;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The classes a compiled class refers to, read from its constant pool (JVMS 4.4): every class constant, field and
 * method descriptor and generic signature, whether the source named the class in an import, by its fully qualified
 * name or only through an inferred type. String constants are left out (a logger named {@code dev.sluice.lock} is no
 * dependency). Used by the dependency-rule tests of every module.
 */
public final class ClassReferences {

    private static final Pattern CLASS_NAME = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*(?:/[A-Za-z_$][A-Za-z0-9_$]*)+");

    private ClassReferences() {
    }

    /**
     * Every class file below {@code classes} (a {@code target/classes} folder), by its internal name
     * ({@code dev/sluice/internal/lock/LockService}), with the internal names of the classes it refers to.
     */
    public static Map<String, Set<String>> of(Path classes) {
        Map<String, Set<String>> references = new TreeMap<>();
        try (Stream<Path> files = Files.walk(classes)) {
            files.filter(f -> f.toString().endsWith(".class")).forEach(f -> {
                String name = classes.relativize(f).toString().replace('\\', '/');
                references.put(name.substring(0, name.length() - ".class".length()), referenced(read(f)));
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return references;
    }

    private static byte[] read(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The internal names of the classes one class file refers to. */
    static Set<String> referenced(byte[] classFile) {
        List<String> utf8 = new ArrayList<>();
        BitSet stringConstants = new BitSet();
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(classFile));
            if (in.readInt() != 0xCAFEBABE) {
                throw new IllegalArgumentException("not a class file");
            }
            in.readUnsignedShort();
            in.readUnsignedShort();
            int count = in.readUnsignedShort();
            utf8.add(null); // the pool counts from 1
            for (int index = 1; index < count; index++) {
                int tag = in.readUnsignedByte();
                String value = null;
                switch (tag) {
                    case 1 -> value = in.readUTF();
                    case 8 -> stringConstants.set(in.readUnsignedShort());
                    case 7, 16, 19, 20 -> in.skipNBytes(2);
                    case 15 -> in.skipNBytes(3);
                    case 3, 4, 9, 10, 11, 12, 17, 18 -> in.skipNBytes(4);
                    case 5, 6 -> in.skipNBytes(8);
                    default -> throw new IllegalArgumentException("unknown constant pool tag " + tag + " at " + index);
                }
                utf8.add(value);
                if (tag == 5 || tag == 6) {
                    utf8.add(null); // longs and doubles take two slots
                    index++;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Set<String> names = new TreeSet<>();
        for (int i = 1; i < utf8.size(); i++) {
            if (utf8.get(i) != null && !stringConstants.get(i)) {
                Matcher m = CLASS_NAME.matcher(utf8.get(i));
                while (m.find()) {
                    String name = m.group();
                    names.add(name);
                    if (name.startsWith("L")) {
                        names.add(name.substring(1)); // a descriptor's or signature's "Ldev/sluice/X;"
                    }
                }
            }
        }
        return names;
    }
}
