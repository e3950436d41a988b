package dev.sluice.sample;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * One row of tickets sold at a box office counter, in the server's default datasource: what
 * {@link BoxOffice} reads, increments and commits under a lock. {@code attempts} counts the sales tried
 * without waiting for the lock ({@link Cashier}); a refused attempt rolls back, so it never stays counted.
 *
 * <p>Not thread-safe (a JPA entity, confined to its persistence context).
 */
@Entity
@Table(name = "SAMPLE_SALE_COUNTER")
public class SaleCounter {

    @Id
    private String id;

    private int sold;

    private int attempts;

    /** For JPA. */
    protected SaleCounter() {
    }

    SaleCounter(String id) {
        this.id = id;
    }

    // Changed only through the entity's own methods: EclipseLink (Payara) weaves them to track the change, and
    // misses an assignment made from another class.

    void sell() {
        sold++;
    }

    void attempt() {
        attempts++;
    }

    int sold() {
        return sold;
    }

    int attempts() {
        return attempts;
    }
}
