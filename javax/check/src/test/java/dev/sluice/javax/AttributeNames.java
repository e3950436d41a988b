package dev.sluice.javax;

import java.util.ArrayList;
import java.util.List;

import org.objectweb.asm.AnnotationVisitor;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.TypePath;

/**
 * The names a class file keeps in attributes that reflection reads ({@code getGenericParameterTypes()},
 * {@code getAnnotations()}, a debugger's local variables) rather than in the code a JVM links, each prefixed with
 * where it sits: {@code method collectGuardedMethods Signature: <T:...>(Ljavax/...;)V}.
 */
final class AttributeNames extends ClassVisitor {

    private final List<String> found = new ArrayList<>();

    private AttributeNames() {
        super(Opcodes.ASM9);
    }

    static List<String> of(byte[] classFile) {
        AttributeNames names = new AttributeNames();
        new ClassReader(classFile).accept(names, 0);
        return names.found;
    }

    private void add(String where, String value) {
        if (value != null) {
            found.add(where + ": " + value);
        }
    }

    @Override
    public void visit(int version, int access, String name, String signature, String superName, String[] interfaces) {
        add("class Signature", signature);
    }

    @Override
    public AnnotationVisitor visitAnnotation(String descriptor, boolean visible) {
        return annotation("class annotation", descriptor);
    }

    @Override
    public AnnotationVisitor visitTypeAnnotation(int typeRef, TypePath typePath, String descriptor, boolean visible) {
        return annotation("class type annotation", descriptor);
    }

    @Override
    public FieldVisitor visitField(int access, String name, String descriptor, String signature, Object value) {
        String where = "field " + name;
        add(where + " Signature", signature);
        return new FieldVisitor(Opcodes.ASM9) {
            @Override
            public AnnotationVisitor visitAnnotation(String annotation, boolean visible) {
                return annotation(where + " annotation", annotation);
            }

            @Override
            public AnnotationVisitor visitTypeAnnotation(int typeRef, TypePath typePath, String annotation, boolean visible) {
                return annotation(where + " type annotation", annotation);
            }
        };
    }

    @Override
    public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
        String where = "method " + name;
        add(where + " Signature", signature);
        return new MethodVisitor(Opcodes.ASM9) {
            @Override
            public AnnotationVisitor visitAnnotation(String annotation, boolean visible) {
                return annotation(where + " annotation", annotation);
            }

            @Override
            public AnnotationVisitor visitAnnotationDefault() {
                return annotation(where + " annotation default", null);
            }

            @Override
            public AnnotationVisitor visitParameterAnnotation(int parameter, String annotation, boolean visible) {
                return annotation(where + " parameter " + parameter + " annotation", annotation);
            }

            @Override
            public AnnotationVisitor visitTypeAnnotation(int typeRef, TypePath typePath, String annotation, boolean visible) {
                return annotation(where + " type annotation", annotation);
            }

            @Override
            public void visitLocalVariable(String local, String localDescriptor, String localSignature, Label start,
                    Label end, int index) {
                add(where + " local " + local + " LocalVariableTypeTable", localSignature);
            }
        };
    }

    /** An annotation's type and, recursively, its element values (strings, enum and class values, nested ones). */
    private AnnotationVisitor annotation(String where, String descriptor) {
        add(where, descriptor);
        return new AnnotationVisitor(Opcodes.ASM9) {
            @Override
            public void visit(String element, Object value) {
                if (value instanceof Type type) {
                    add(where + " element " + element, type.getDescriptor());
                } else if (value instanceof String text) {
                    add(where + " element " + element, text);
                }
            }

            @Override
            public void visitEnum(String element, String enumDescriptor, String value) {
                add(where + " element " + element, enumDescriptor + "." + value);
            }

            @Override
            public AnnotationVisitor visitAnnotation(String element, String nested) {
                return annotation(where + " element " + element, nested);
            }

            @Override
            public AnnotationVisitor visitArray(String element) {
                return annotation(where + " element " + element + "[]", null);
            }
        };
    }
}
