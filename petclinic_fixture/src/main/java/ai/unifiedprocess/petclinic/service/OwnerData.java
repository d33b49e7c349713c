package ai.unifiedprocess.petclinic.service;

/** What the owner form submits; raw strings, validated by {@link OwnerService}. */
public record OwnerData(String firstName, String lastName, String address, String city,
        String telephone) {
}
