package dev.sluice.javax;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassWriter;

/**
 * What a class file (JVMS 4.4) names, read three ways:
 * <ul>
 * <li>{@link #strings()}: the UTF-8 constants the class uses (class names, descriptors, signatures, string
 * literals such as a {@code Class.forName} argument), and {@link #members()}: every field, method and
 * interface-method reference with its owner, name and descriptor; both after ASM wrote the class again, which
 * keeps only the constants something refers to, so they are what a JVM resolves;</li>
 * <li>{@link #everyConstant()}: every UTF-8 constant as the file stores it, unused ones included (Eclipse
 * Transformer leaves a replaced generic signature behind as one), for checks that no name may hide anywhere;</li>
 * <li>{@link #attributes()}: the names that reflection reads from attributes rather than from code, each with where
 * it sits: generic {@code Signature}s of the class, fields, methods and local variables
 * ({@code LocalVariableTypeTable}), and annotations with their element values.</li>
 * </ul>
 */
record ClassFile(List<String> strings, List<String> everyConstant, List<String> attributes, List<MemberRef> members) {

    /** One field or method that the class uses: {@code owner} in internal form ({@code javax/servlet/Filter}). */
    record MemberRef(Kind kind, String owner, String name, String descriptor) {

        enum Kind { FIELD, METHOD }

        @Override
        public String toString() {
            return owner.replace('/', '.') + "." + name + descriptor;
        }
    }

    /** The constant pool's UTF-8 entries and member references. */
    private record Pool(List<String> strings, List<MemberRef> members) {
    }

    static ClassFile parse(byte[] original) throws IOException {
        Pool used = pool(usedConstantsOnly(original));
        return new ClassFile(used.strings(), pool(original).strings(), AttributeNames.of(original), used.members());
    }

    private static Pool pool(byte[] bytes) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException("not a class file");
        }
        in.readUnsignedShort();
        in.readUnsignedShort();
        int count = in.readUnsignedShort();
        String[] utf8 = new String[count];
        int[] tags = new int[count];
        int[] first = new int[count];
        int[] second = new int[count];
        for (int index = 1; index < count; index++) {
            int tag = in.readUnsignedByte();
            tags[index] = tag;
            switch (tag) {
                case 1 -> utf8[index] = in.readUTF();
                case 7, 8, 16, 19, 20 -> first[index] = in.readUnsignedShort();
                case 15 -> in.skipNBytes(3);
                case 9, 10, 11, 12 -> {
                    first[index] = in.readUnsignedShort();
                    second[index] = in.readUnsignedShort();
                }
                case 3, 4, 17, 18 -> in.skipNBytes(4);
                case 5, 6 -> {
                    in.skipNBytes(8);
                    index++; // longs and doubles take two slots
                }
                default -> throw new IOException("unknown constant pool tag " + tag + " at index " + index);
            }
        }
        List<String> strings = new ArrayList<>();
        List<MemberRef> members = new ArrayList<>();
        for (int index = 1; index < count; index++) {
            if (tags[index] == 1) {
                strings.add(utf8[index]);
            } else if (tags[index] == 9 || tags[index] == 10 || tags[index] == 11) {
                String owner = utf8[first[first[index]]];
                int nameAndType = second[index];
                members.add(new MemberRef(tags[index] == 9 ? MemberRef.Kind.FIELD : MemberRef.Kind.METHOD,
                        owner, utf8[first[nameAndType]], utf8[second[nameAndType]]));
            }
        }
        return new Pool(strings, members);
    }

    /** The class written again by ASM, whose constant pool holds only what the class refers to. */
    private static byte[] usedConstantsOnly(byte[] bytes) {
        ClassWriter writer = new ClassWriter(0);
        new ClassReader(bytes).accept(writer, 0);
        return writer.toByteArray();
    }
}
