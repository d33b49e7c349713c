package ai.unifiedprocess.petclinic;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Sensor: the layering and naming rules of the PetClinic, read from the compiled classes.
 *
 * <pre>
 *   ui  ->  service  ->  repository (interfaces)  ->  domain
 *                        repository.inmemory (implementations, wired only by PetClinic)
 * </pre>
 *
 * Each rule lists every offender in one failure, so one run shows all there is to fix. The
 * conventions of the test classes themselves are TestLayerConventionsTest's.
 */
@Tag("sensor")
class ArchitectureTest {

    private static final String ROOT = "ai.unifiedprocess.petclinic";
    private static final String DOMAIN = ROOT + ".domain";
    private static final String REPOSITORY = ROOT + ".repository";
    private static final String REPOSITORY_IMPL = ROOT + ".repository.inmemory";
    private static final String SERVICE = ROOT + ".service";
    private static final String UI = ROOT + ".ui";

    private static List<CompiledClass> main;
    private static List<CompiledClass> tests;

    @BeforeAll
    static void readClasses() {
        main = CompiledClass.readAll(ProjectLayout.mainClasses());
        tests = CompiledClass.readAll(ProjectLayout.testClasses());
        assertTrue(main.size() > 0, "no compiled classes in " + ProjectLayout.mainClasses());
    }

    @Test
    void uiTalksToServicesNeverToRepositories() {
        assertNoDependency("ui classes use services, never repositories", inLayer(UI),
                inLayer(REPOSITORY));
    }

    @Test
    void domainDependsOnNoOtherLayer() {
        assertNoDependency("the domain knows no service, repository or ui", inLayer(DOMAIN),
                inLayer(SERVICE).or(inLayer(REPOSITORY)).or(inLayer(UI)));
    }

    @Test
    void repositoriesDependOnlyOnTheDomain() {
        assertNoDependency("repositories know no service or ui", inLayer(REPOSITORY),
                inLayer(SERVICE).or(inLayer(UI)));
    }

    @Test
    void servicesUseRepositoryInterfacesNotImplementationsAndNoUi() {
        assertNoDependency("services know repository interfaces only, and no ui",
                inLayer(SERVICE), inLayer(REPOSITORY_IMPL).or(inLayer(UI)));
    }

    @Test
    void repositoryImplementationsLiveInTheRepositoryLayer() {
        List<String> offenders = new ArrayList<>();
        for (CompiledClass type : main) {
            boolean implementsRepository = type.interfaces().stream()
                    .anyMatch(name -> name.startsWith(REPOSITORY + "."));
            boolean namedRepository = type.simpleName().endsWith("Repository");
            if ((implementsRepository || namedRepository) && !isInLayer(type.name(), REPOSITORY)) {
                offenders.add(type.name() + " is a repository outside " + REPOSITORY);
            }
            if (implementsRepository && !type.packageName().equals(REPOSITORY_IMPL)) {
                offenders.add(type.name() + " implements a repository outside "
                        + REPOSITORY_IMPL);
            }
            if (type.packageName().equals(REPOSITORY_IMPL) && type.isTopLevel()
                    && !(implementsRepository && type.simpleName().startsWith("InMemory")
                            && namedRepository)) {
                offenders.add(type.name() + " in " + REPOSITORY_IMPL
                        + " must be an InMemory...Repository implementing a repository interface");
            }
        }
        report("repository implementations belong in " + REPOSITORY_IMPL, offenders);
    }

    @Test
    void viewsAreNamedView() {
        List<String> offenders = main.stream()
                .filter(type -> type.packageName().equals(UI) && type.isTopLevel())
                .filter(type -> !type.simpleName().endsWith("View"))
                .map(type -> type.name() + " is in the ui package but not named ...View")
                .toList();
        report("ui classes are views", offenders);
    }

    @Test
    void productionCodeNeverUsesTestCode() {
        Set<String> testClassNames = new java.util.HashSet<>();
        tests.forEach(type -> testClassNames.add(type.name()));
        List<String> offenders = new ArrayList<>();
        for (CompiledClass type : main) {
            type.references().stream().filter(testClassNames::contains)
                    .forEach(name -> offenders.add(type.name() + " -> " + name));
            type.references().stream().filter(name -> name.startsWith("org.junit."))
                    .forEach(name -> offenders.add(type.name() + " -> " + name));
        }
        report("production code does not depend on tests or JUnit", offenders);
    }

    private static void assertNoDependency(String rule, Predicate<String> from,
            Predicate<String> to) {
        List<String> offenders = new ArrayList<>();
        for (CompiledClass type : main) {
            if (!from.test(type.name())) {
                continue;
            }
            for (String reference : type.references()) {
                if (to.test(reference)) {
                    offenders.add(type.name() + " -> " + reference);
                }
            }
        }
        report(rule, offenders);
    }

    private static Predicate<String> inLayer(String layerPackage) {
        return name -> isInLayer(name, layerPackage);
    }

    private static boolean isInLayer(String className, String layerPackage) {
        return className.startsWith(layerPackage + ".");
    }

    private static void report(String rule, List<String> offenders) {
        Violations.failIfAny("Architecture", rule, offenders);
    }
}
