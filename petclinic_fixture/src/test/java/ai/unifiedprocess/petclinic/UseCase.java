package ai.unifiedprocess.petclinic;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Traces a test method to the part of a use-case spec it proves. UseCaseTraceabilityTest checks
 * that the id, scenario and business rules exist in docs/use_cases/ and that Done/Tested specs
 * are fully covered.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface UseCase {

    /** The spec's id, e.g. "UC-003". */
    String id();

    /** "Main Success Scenario" or an alternative flow with its title, e.g. "A1: Validation Errors". */
    String scenario() default "Main Success Scenario";

    /** Business rule ids of this use case, e.g. {"BR-001"}. */
    String[] businessRules() default {};
}
