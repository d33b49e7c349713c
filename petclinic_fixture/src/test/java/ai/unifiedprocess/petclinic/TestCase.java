package ai.unifiedprocess.petclinic;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a test method as (part of) the automation of a test-case spec in docs/test_cases/.
 * TestCaseTraceabilityTest checks that the id exists and that every Automated spec has one.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface TestCase {

    /** The spec's id, e.g. "TC-001". */
    String id();
}
