package ai.unifiedprocess.petclinic.service;

/** An id from the outside (a link, a form) names nothing the clinic stores. */
public class NotFoundException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public NotFoundException(String message) {
        super(message);
    }
}
