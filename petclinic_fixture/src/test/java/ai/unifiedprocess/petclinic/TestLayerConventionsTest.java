package ai.unifiedprocess.petclinic;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Tags;
import org.junit.jupiter.api.Test;

/**
 * Sensor: the conventions of the test layer, read from the compiled test classes. A test's name
 * says how it runs (Surefire runs *Test, a browser test is *IT and runs later), and its package
 * says what it tests. These are properties of the repository, so they are a test, not a hook
 * (ADR-010): the rule binds everyone, in every editor and in CI.
 */
@Tag("sensor")
class TestLayerConventionsTest {

    private static final String ROOT = "ai.unifiedprocess.petclinic";
    private static final String KIND = "Test-layer";
    private static final String SOURCES = "src/test/java";
    /** Test classes that drive a browser; they end in IT and run outside the sensor set. */
    private static final List<String> BROWSER_PACKAGES =
            List.of("com.microsoft.playwright.", "org.openqa.selenium.");
    private static final Pattern USE_CASE_TEST = Pattern.compile("UC\\d{3}\\w*(Test|IT)");

    private static List<CompiledClass> tests;
    private static Map<String, Set<String>> mainPackagesBySimpleName;
    private static Map<String, CompiledClass> testsByName;

    @BeforeAll
    static void readClasses() {
        tests = CompiledClass.readAll(ProjectLayout.testClasses());
        testsByName = new HashMap<>();
        tests.forEach(type -> testsByName.put(type.name(), type));
        mainPackagesBySimpleName = new HashMap<>();
        for (CompiledClass type : CompiledClass.readAll(ProjectLayout.mainClasses())) {
            mainPackagesBySimpleName.computeIfAbsent(type.simpleName(), name -> new TreeSet<>())
                    .add(type.packageName());
        }
    }

    @Test
    void browserlessTestClassesEndInTestAndBrowserTestsInIT() {
        List<String> violations = new ArrayList<>();
        for (CompiledClass type : tests) {
            if (!type.isTopLevel() || !JUnitTests.declaresTests(type)) {
                continue;
            }
            boolean browser = drivesABrowser(type);
            String expected = browser ? "IT" : "Test";
            if (!type.simpleName().endsWith(expected)) {
                violations.add(type.sourceFile(SOURCES) + ": " + type.simpleName() + " holds "
                        + (browser ? "browser" : "browserless") + " tests, so its name must end in "
                        + expected);
            }
        }
        Violations.failIfAny(KIND, "test classes are named after how they run", violations);
    }

    @Test
    void classesNamedTestHoldTests() {
        List<String> violations = new ArrayList<>();
        for (CompiledClass type : tests) {
            if (type.isTopLevel() && type.simpleName().endsWith("Test") && !holdsTests(type)) {
                violations.add(type.sourceFile(SOURCES) + ": " + type.simpleName()
                        + " is named ...Test but declares no test, so the build runs nothing for"
                        + " it; add its tests or rename it");
            }
        }
        Violations.failIfAny(KIND, "a class named ...Test is a test", violations);
    }

    @Test
    void testsSitInThePackageOfWhatTheyTest() {
        List<String> violations = new ArrayList<>();
        for (CompiledClass type : tests) {
            if (!type.isTopLevel() || !JUnitTests.declaresTests(type)) {
                continue;
            }
            String name = type.simpleName();
            if (USE_CASE_TEST.matcher(name).matches() || isSensor(type)) {
                // Use-case tests drive the whole clinic; sensors are where the hooks look for
                // their reports (TEST-ai.unifiedprocess.petclinic.<Sensor>.xml).
                if (!type.packageName().equals(ROOT)) {
                    violations.add(type.sourceFile(SOURCES) + ": " + name + " is a "
                            + (isSensor(type) ? "sensor" : "use-case test")
                            + ", so it belongs in package " + ROOT);
                }
                continue;
            }
            String tested = name.replaceFirst("(Test|IT)$", "");
            Set<String> packages = mainPackagesBySimpleName.get(tested);
            if (packages != null && !packages.contains(type.packageName())) {
                violations.add(type.sourceFile(SOURCES) + ": " + name + " tests " + tested
                        + ", so it belongs in package " + String.join(" or ", packages));
            }
        }
        Violations.failIfAny(KIND, "tests sit in the package of what they test", violations);
    }

    private static boolean drivesABrowser(CompiledClass type) {
        return type.references().stream()
                .anyMatch(name -> BROWSER_PACKAGES.stream().anyMatch(name::startsWith));
    }

    /** Tests declared by the class or inherited from a test class it extends. */
    private static boolean holdsTests(CompiledClass type) {
        for (CompiledClass current = type; current != null;
                current = testsByName.get(current.superName())) {
            if (JUnitTests.declaresTests(current)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isSensor(CompiledClass type) {
        Class<?> loaded;
        try {
            loaded = Class.forName(type.name(), false,
                    TestLayerConventionsTest.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("Cannot load " + type.name(), e);
        }
        List<Tag> tags = new ArrayList<>();
        Tag single = loaded.getAnnotation(Tag.class);
        if (single != null) {
            tags.add(single);
        }
        Tags several = loaded.getAnnotation(Tags.class);
        if (several != null) {
            tags.addAll(List.of(several.value()));
        }
        return tags.stream().anyMatch(tag -> tag.value().equals("sensor"));
    }
}
