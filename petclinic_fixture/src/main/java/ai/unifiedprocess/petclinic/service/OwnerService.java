package ai.unifiedprocess.petclinic.service;

import ai.unifiedprocess.petclinic.domain.Owner;
import ai.unifiedprocess.petclinic.repository.OwnerRepository;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/** Registering, editing and finding owners (UC-001, UC-002, UC-003). */
public class OwnerService {

    /** BR-001: a telephone number is 1 to 10 digits and nothing else. */
    private static final Pattern TELEPHONE = Pattern.compile("\\d{1,10}");

    private final OwnerRepository owners;

    public OwnerService(OwnerRepository owners) {
        this.owners = owners;
    }

    /** UC-003: validates (BR-001), refuses a duplicate (BR-002), then stores the owner. */
    public Owner register(OwnerData data) {
        OwnerData clean = trimmed(data);
        validate(clean);
        Optional<Owner> existing = findDuplicate(clean);
        if (existing.isPresent()) {
            Owner owner = existing.get();
            throw new DuplicateOwnerException(owner.getId(), owner.getFullName());
        }
        Owner owner = new Owner(clean.firstName(), clean.lastName(), clean.address(), clean.city(),
                clean.telephone());
        return owners.save(owner);
    }

    /** UC-002: changes the owner's own fields; pets and visits stay as they are. */
    public Owner update(int ownerId, OwnerData data) {
        Owner owner = get(ownerId);
        OwnerData clean = trimmed(data);
        validate(clean);
        owner.setFirstName(clean.firstName());
        owner.setLastName(clean.lastName());
        owner.setAddress(clean.address());
        owner.setCity(clean.city());
        owner.setTelephone(clean.telephone());
        return owners.save(owner);
    }

    /** UC-001 BR-001: case-insensitive prefix of the last name; blank finds every owner. */
    public List<Owner> findByLastName(String lastNamePrefix) {
        String prefix = lastNamePrefix == null ? "" : lastNamePrefix.trim();
        return owners.findByLastNameStartingWith(prefix);
    }

    public Owner get(int ownerId) {
        return owners.findById(ownerId)
                .orElseThrow(() -> new NotFoundException("Owner " + ownerId + " does not exist"));
    }

    private Optional<Owner> findDuplicate(OwnerData data) {
        String first = data.firstName().toLowerCase(Locale.ROOT);
        return owners.findByLastNameStartingWith(data.lastName()).stream()
                .filter(owner -> owner.getLastName().equalsIgnoreCase(data.lastName()))
                .filter(owner -> owner.getFirstName().toLowerCase(Locale.ROOT).equals(first))
                .filter(owner -> owner.getTelephone().equals(data.telephone()))
                .findFirst();
    }

    /** BR-001: every field is required; the telephone is digits only. */
    private static void validate(OwnerData data) {
        List<FieldError> errors = new ArrayList<>();
        required(errors, "firstName", data.firstName());
        required(errors, "lastName", data.lastName());
        required(errors, "address", data.address());
        required(errors, "city", data.city());
        required(errors, "telephone", data.telephone());
        if (!data.telephone().isEmpty() && !TELEPHONE.matcher(data.telephone()).matches()) {
            errors.add(new FieldError("telephone", "must be 1 to 10 digits"));
        }
        if (!errors.isEmpty()) {
            throw new ValidationException(errors);
        }
    }

    private static void required(List<FieldError> errors, String field, String value) {
        if (value.isEmpty()) {
            errors.add(new FieldError(field, "is required"));
        }
    }

    private static OwnerData trimmed(OwnerData data) {
        return new OwnerData(trim(data.firstName()), trim(data.lastName()), trim(data.address()),
                trim(data.city()), trim(data.telephone()));
    }

    private static String trim(String value) {
        return value == null ? "" : value.trim();
    }
}
