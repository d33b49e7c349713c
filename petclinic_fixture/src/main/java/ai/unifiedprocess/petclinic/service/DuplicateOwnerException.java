package ai.unifiedprocess.petclinic.service;

/** Registration refused: the owner already exists (UC-003 BR-002). */
public class DuplicateOwnerException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int existingOwnerId;

    public DuplicateOwnerException(int existingOwnerId, String fullName) {
        super(fullName + " is already registered as owner " + existingOwnerId);
        this.existingOwnerId = existingOwnerId;
    }

    public int getExistingOwnerId() {
        return existingOwnerId;
    }
}
