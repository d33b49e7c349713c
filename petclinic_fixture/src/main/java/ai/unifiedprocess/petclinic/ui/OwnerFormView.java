package ai.unifiedprocess.petclinic.ui;

import ai.unifiedprocess.petclinic.domain.Owner;
import ai.unifiedprocess.petclinic.service.DuplicateOwnerException;
import ai.unifiedprocess.petclinic.service.FieldError;
import ai.unifiedprocess.petclinic.service.NotFoundException;
import ai.unifiedprocess.petclinic.service.OwnerData;
import ai.unifiedprocess.petclinic.service.OwnerService;
import ai.unifiedprocess.petclinic.service.ValidationException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The owner form: "Add Owner" (UC-003) and "Edit Owner" (UC-002). */
public class OwnerFormView {

    static final List<String> FIELDS = List.of("firstName", "lastName", "address", "city",
            "telephone");

    private final OwnerService owners;
    private final Integer ownerId;
    private final Map<String, String> values = new LinkedHashMap<>();
    private final Map<String, String> errors = new LinkedHashMap<>();
    private String notice = "";
    private Integer savedOwnerId;

    private OwnerFormView(OwnerService owners, Integer ownerId) {
        this.owners = owners;
        this.ownerId = ownerId;
        FIELDS.forEach(field -> values.put(field, ""));
    }

    public static OwnerFormView forNewOwner(OwnerService owners) {
        return new OwnerFormView(owners, null);
    }

    /** Opens the form filled with the owner's current data; unknown ids fail here. */
    public static OwnerFormView forExistingOwner(OwnerService owners, int ownerId) {
        Owner owner = owners.get(ownerId);
        OwnerFormView view = new OwnerFormView(owners, ownerId);
        view.enter("firstName", owner.getFirstName());
        view.enter("lastName", owner.getLastName());
        view.enter("address", owner.getAddress());
        view.enter("city", owner.getCity());
        view.enter("telephone", owner.getTelephone());
        return view;
    }

    public OwnerFormView enter(String field, String value) {
        if (!values.containsKey(field)) {
            throw new IllegalArgumentException("The owner form has no field " + field);
        }
        values.put(field, value);
        return this;
    }

    /** Saves the form; on failure keeps the input and shows what to fix. */
    public boolean submit() {
        errors.clear();
        notice = "";
        OwnerData data = new OwnerData(values.get("firstName"), values.get("lastName"),
                values.get("address"), values.get("city"), values.get("telephone"));
        try {
            Owner saved = ownerId == null ? owners.register(data) : owners.update(ownerId, data);
            savedOwnerId = saved.getId();
            notice = ownerId == null ? "New Owner Created" : "Owner Values Updated";
            return true;
        } catch (ValidationException e) {
            for (FieldError error : e.getErrors()) {
                errors.putIfAbsent(error.field(), error.message());
            }
            return false;
        } catch (DuplicateOwnerException e) {
            notice = "This owner is already registered (owner " + e.getExistingOwnerId() + ")";
            return false;
        } catch (NotFoundException e) {
            notice = e.getMessage();
            return false;
        }
    }

    public Map<String, String> errors() {
        return Map.copyOf(errors);
    }

    public String notice() {
        return notice;
    }

    public Optional<Integer> savedOwnerId() {
        return Optional.ofNullable(savedOwnerId);
    }

    public String render() {
        StringBuilder out = new StringBuilder(ownerId == null ? "Add Owner\n" : "Edit Owner\n");
        if (!notice.isEmpty()) {
            out.append("! ").append(notice).append('\n');
        }
        values.forEach((field, value) -> {
            out.append(field).append(": ").append(value);
            if (errors.containsKey(field)) {
                out.append("  <- ").append(errors.get(field));
            }
            out.append('\n');
        });
        return out.toString();
    }
}
