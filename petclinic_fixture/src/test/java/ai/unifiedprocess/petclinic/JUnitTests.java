package ai.unifiedprocess.petclinic;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Set;

/** What makes a method a test JUnit runs, by annotation name (no optional JUnit module needed). */
final class JUnitTests {

    static final Set<String> TEST_ANNOTATIONS = Set.of(
            "org.junit.jupiter.api.Test",
            "org.junit.jupiter.api.RepeatedTest",
            "org.junit.jupiter.api.TestFactory",
            "org.junit.jupiter.api.TestTemplate",
            "org.junit.jupiter.params.ParameterizedTest");

    private JUnitTests() {
    }

    /** True when the class file names a test annotation: it declares at least one test. */
    static boolean declaresTests(CompiledClass type) {
        return TEST_ANNOTATIONS.stream().anyMatch(type::references);
    }

    static boolean isTest(Method method) {
        return Arrays.stream(method.getAnnotations())
                .map(Annotation::annotationType)
                .anyMatch(type -> TEST_ANNOTATIONS.contains(type.getName()));
    }
}
