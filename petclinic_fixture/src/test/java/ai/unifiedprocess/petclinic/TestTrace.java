package ai.unifiedprocess.petclinic;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Disabled;

/**
 * A test method carrying a traceability annotation ({@link UseCase}, {@link TestCase}): the link
 * from the code to a spec in docs/ that the traceability sensors follow.
 */
record TestTrace<A extends Annotation>(Class<?> testClass, Method method, A annotation) {

    /** "UC003RegisterOwnerTest.rejectsMissingLastName": where a message points. */
    String where() {
        return testClass.getSimpleName() + "." + method.getName();
    }

    /** A disabled test, or a method JUnit never runs, proves nothing. */
    boolean runs() {
        return JUnitTests.isTest(method)
                && !method.isAnnotationPresent(Disabled.class)
                && !testClass.isAnnotationPresent(Disabled.class);
    }

    /** Every method of the compiled test classes that carries the annotation, sorted by place. */
    static <A extends Annotation> List<TestTrace<A>> findAll(Class<A> annotationType) {
        ClassLoader loader = TestTrace.class.getClassLoader();
        List<TestTrace<A>> found = new ArrayList<>();
        for (CompiledClass compiled : CompiledClass.readAll(ProjectLayout.testClasses())) {
            if (!compiled.references(annotationType.getName())) {
                continue; // cheap pre-filter: only classes that mention the annotation are loaded
            }
            Class<?> type;
            try {
                type = Class.forName(compiled.name(), false, loader);
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException("Cannot load " + compiled.name(), e);
            }
            for (Method method : type.getDeclaredMethods()) {
                A annotation = method.getAnnotation(annotationType);
                if (annotation != null) {
                    found.add(new TestTrace<>(type, method, annotation));
                }
            }
        }
        found.sort(Comparator.comparing(TestTrace::where));
        return found;
    }
}
