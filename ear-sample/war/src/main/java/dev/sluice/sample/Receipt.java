package dev.sluice.sample;

import java.util.UUID;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * A printed receipt of a box office counter, one row per {@link BoxOffice#printReceipt} call.
 *
 * <p>Not thread-safe (a JPA entity, confined to its persistence context).
 */
@Entity
@Table(name = "SAMPLE_RECEIPT")
public class Receipt {

    @Id
    private String id;

    private String counterId;

    /** For JPA. */
    protected Receipt() {
    }

    Receipt(String counterId) {
        this.id = UUID.randomUUID().toString();
        this.counterId = counterId;
    }
}
