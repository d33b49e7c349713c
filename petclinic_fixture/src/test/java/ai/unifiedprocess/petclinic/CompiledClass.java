package ai.unifiedprocess.petclinic;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One .class file, read with plain Java (ArchUnit is not in the offline repository). The
 * constant pool names every class the code touches: class references plus the type descriptors
 * of fields, methods, generic signatures and annotations.
 */
record CompiledClass(String name, String superName, List<String> interfaces,
        Set<String> references) {

    private static final Pattern DESCRIPTOR_TYPE = Pattern.compile("L([\\w/$]+)[;<]");

    String simpleName() {
        return name.substring(name.lastIndexOf('.') + 1);
    }

    String packageName() {
        int dot = name.lastIndexOf('.');
        return dot < 0 ? "" : name.substring(0, dot);
    }

    boolean isTopLevel() {
        return !simpleName().contains("$");
    }

    /** The source file of a top-level class below a source root, e.g. "src/test/java". */
    String sourceFile(String sourceRoot) {
        return sourceRoot + "/" + name.replace('.', '/') + ".java";
    }

    boolean references(String className) {
        return references.contains(className);
    }

    /**
     * Each directory read once per test JVM: the sensors read the same classes five times over,
     * and nothing compiles while they run (Surefire starts a new JVM, or runs in Maven's, per
     * run).
     */
    private static final Map<Path, List<CompiledClass>> READ = new ConcurrentHashMap<>();

    /** Every class below a directory such as target/classes, sorted by name. */
    static List<CompiledClass> readAll(Path root) {
        return READ.computeIfAbsent(root.toAbsolutePath().normalize(), CompiledClass::walk);
    }

    private static List<CompiledClass> walk(Path root) {
        if (!Files.isDirectory(root)) {
            throw new IllegalStateException(root + " does not exist: compile first");
        }
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(file -> file.toString().endsWith(".class"))
                    .filter(file -> !file.getFileName().toString().equals("module-info.class"))
                    .map(CompiledClass::read)
                    .sorted((a, b) -> a.name().compareTo(b.name()))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static CompiledClass read(Path file) {
        try (DataInputStream in = new DataInputStream(
                new ByteArrayInputStream(Files.readAllBytes(file)))) {
            if (in.readInt() != 0xCAFEBABE) {
                throw new IllegalStateException(file + " is not a class file");
            }
            in.readUnsignedShort(); // minor version
            in.readUnsignedShort(); // major version
            int count = in.readUnsignedShort();
            String[] utf8 = new String[count];
            int[] classNameIndex = new int[count];
            for (int i = 1; i < count; i++) {
                int tag = in.readUnsignedByte();
                switch (tag) {
                    case 1 -> utf8[i] = in.readUTF();
                    case 7 -> classNameIndex[i] = in.readUnsignedShort();
                    case 8, 16, 19, 20 -> in.readUnsignedShort();
                    case 3, 4, 9, 10, 11, 12, 17, 18 -> in.readInt();
                    case 5, 6 -> {
                        in.readLong();
                        i++; // longs and doubles take two slots
                    }
                    case 15 -> {
                        in.readUnsignedByte();
                        in.readUnsignedShort();
                    }
                    default -> throw new IllegalStateException(
                            file + ": unknown constant pool tag " + tag);
                }
            }
            in.readUnsignedShort(); // access flags
            String name = className(utf8[classNameIndex[in.readUnsignedShort()]]);
            int superIndex = in.readUnsignedShort();
            String superName = superIndex == 0 ? "" : className(utf8[classNameIndex[superIndex]]);
            List<String> interfaces = new ArrayList<>();
            int interfaceCount = in.readUnsignedShort();
            for (int i = 0; i < interfaceCount; i++) {
                interfaces.add(className(utf8[classNameIndex[in.readUnsignedShort()]]));
            }

            Set<String> references = new TreeSet<>();
            for (int i = 1; i < count; i++) {
                if (classNameIndex[i] != 0) {
                    String internal = utf8[classNameIndex[i]];
                    if (internal.startsWith("[")) {
                        collectDescriptorTypes(internal, references);
                    } else {
                        references.add(className(internal));
                    }
                } else if (utf8[i] != null) {
                    collectDescriptorTypes(utf8[i], references);
                }
            }
            references.remove(name);
            return new CompiledClass(name, superName, List.copyOf(interfaces), references);
        } catch (IOException e) {
            throw new UncheckedIOException(file.toString(), e);
        }
    }

    private static void collectDescriptorTypes(String text, Set<String> into) {
        Matcher matcher = DESCRIPTOR_TYPE.matcher(text);
        while (matcher.find()) {
            into.add(className(matcher.group(1)));
        }
    }

    private static String className(String internalName) {
        return internalName.replace('/', '.');
    }
}
