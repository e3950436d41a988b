package dev.sluice.internal.cdi;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Key templates compiled against a method and rendered from its arguments. */
class KeyTemplateTest {

    /** Equal orders are one order to the business, but Object.toString() would tell them apart. */
    static final class Order {
        private final long id;
        private final Customer customer;

        Order(long id, Customer customer) {
            this.id = id;
            this.customer = customer;
        }

        public long getId() {
            return id;
        }

        public Customer getCustomer() {
            return customer;
        }
    }

    /** A private type: its accessors are public but not reachable without setAccessible. */
    private record Customer(String id, Address address) {
    }

    static final class Address {
        public String city;

        Address(String city) {
            this.city = city;
        }
    }

    interface Named {
        String getName();
    }

    /** An interface promising a meaningful {@code toString()} by redeclaring it. */
    interface Keyed {
        @Override
        String toString();
    }

    enum Region { EU, US }

    /** Cargo Tracker's identifier: its one property is {@code idString}, not {@code id}. */
    static final class TrackingId {
        public String region;
        private final String id;

        TrackingId(String id) {
            this.id = id;
        }

        public String getIdString() {
            return id;
        }

        public boolean isExpired() {
            return false;
        }

        public static TrackingId parse(String text) {
            return new TrackingId(text);
        }

        public void setIdString(String ignored) {
        }
    }

    /** A record whose components are its properties, next to a getter of its own. */
    record Leg(String from, String to) {
        public int getStops() {
            return 0;
        }
    }

    /** The methods the templates are compiled against. */
    @SuppressWarnings("unused")
    static final class Signatures {
        void order(Order order) {
        }

        void two(String a, String b) {
        }

        void ids(long[] ids) {
        }

        void anything(Object value) {
        }

        void named(Named named) {
        }

        void keyed(Keyed keyed) {
        }

        void region(Region region, long shard) {
        }

        void customer(Customer customer) {
        }

        void sequence(CharSequence text) {
        }

        void list(List<String> items) {
        }

        void tracking(TrackingId trackingId) {
        }

        void leg(Leg leg) {
        }
    }

    private static Method method(String name) {
        return Arrays.stream(Signatures.class.getDeclaredMethods()).filter(m -> m.getName().equals(name))
                .findFirst().orElseThrow();
    }

    private static String render(String template, String method, Object... arguments) {
        return KeyTemplate.compile(template, method(method)).render(arguments);
    }

    @Test
    void aSinglePlaceholderRendersItsValueVerbatim() {
        assertThat(render("order:{0}", "two", "a:b%c", "x")).isEqualTo("order:a:b%c");
    }

    @Test
    void twoArgumentListsThatWouldRunTogetherGiveDifferentKeys() {
        String first = render("pair:{0}:{1}", "two", "a:b", "c");
        String second = render("pair:{0}:{1}", "two", "a", "b:c");
        assertThat(first).isNotEqualTo(second);
        assertThat(first).isEqualTo("pair:a%3Ab:c");
        assertThat(second).isEqualTo("pair:a:b%3Ac");
    }

    @Test
    void plainValuesOfSeveralPlaceholdersStayReadable() {
        assertThat(render("pair:{0}:{1}", "two", "42", "7")).isEqualTo("pair:42:7");
        assertThat(render("{0}/{1}", "two", "a:b", "c")).isEqualTo("a:b/c");
        assertThat(render("{1}/{0}", "region", Region.EU, 7L)).isEqualTo("7/EU");
    }

    @Test
    void theEscapeCharacterIsItselfEscapedWhereValuesAreEscaped() {
        assertThat(render("{0}:{1}", "two", "%3A", "c")).isNotEqualTo(render("{0}:{1}", "two", ":", "c"));
    }

    @Test
    void propertyPathsReadGettersRecordComponentsAndPublicFields() {
        Order order = new Order(42, new Customer("c-7", new Address("Oslo")));
        assertThat(render("order:{0.id}", "order", order)).isEqualTo("order:42");
        assertThat(render("{order.customer.id}", "order", order)).isEqualTo("c-7");
        assertThat(render("{0.customer.address.city}", "order", order)).isEqualTo("Oslo");
        assertThat(render("{customer.id}", "customer", new Customer("c-8", null))).isEqualTo("c-8");
    }

    @Test
    void twoEqualOrdersWithoutToStringRenderOneKeyThroughTheirId() {
        assertThat(render("order:{0.id}", "order", new Order(42, null)))
                .isEqualTo(render("order:{0.id}", "order", new Order(42, null)));
    }

    @Test
    void aPlaceholderOfATypeWithoutToStringIsRefusedNamingTheTypeAndAHint() {
        assertThatThrownBy(() -> KeyTemplate.compile("order:{0}", method("order")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("{0} is a " + Order.class.getName())
                .hasMessageContaining("does not override toString()")
                .hasMessageContaining("{0.id}");
        assertThatThrownBy(() -> KeyTemplate.compile("{order.customer.address}", method("order")))
                .hasMessageContaining("{order.customer.address} is a " + Address.class.getName());
    }

    @Test
    void arraysObjectAndInterfacesWithoutToStringAreRefused() {
        assertThatThrownBy(() -> KeyTemplate.compile("{0}", method("ids")))
                .hasMessageContaining("{0} is an array (long[])");
        assertThatThrownBy(() -> KeyTemplate.compile("{0}", method("anything")))
                .hasMessageContaining("{0} is a java.lang.Object");
        assertThatThrownBy(() -> KeyTemplate.compile("{0}", method("named")))
                .hasMessageContaining("{0} is the interface " + Named.class.getName())
                .hasMessageContaining("does not declare toString()");
        assertThatThrownBy(() -> KeyTemplate.compile("{0}", method("list")))
                .hasMessageContaining("{0} is the interface java.util.List");
    }

    @Test
    void typesThatRenderByValueAreAccepted() {
        assertThat(render("{0}", "keyed", new Keyed() {
            @Override
            public String toString() {
                return "k-1";
            }
        })).isEqualTo("k-1");
        assertThat(render("{0}", "sequence", new StringBuilder("sb"))).isEqualTo("sb");
        assertThat(render("{0}", "customer", new Customer("c", null))).isEqualTo("Customer[id=c, address=null]");
        assertThat(render("{0}:{1}", "region", Region.US, 3L)).isEqualTo("US:3");
        assertThat(render("{0.name}", "named", (Named) () -> "n-1")).isEqualTo("n-1");
    }

    @Test
    void anUnknownPropertyIsRefusedNamingTheTypeAndWhatWasLookedFor() {
        assertThatThrownBy(() -> KeyTemplate.compile("{0.number}", method("order")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("{0.number}: " + Order.class.getName() + " has no property number")
                .hasMessageContaining("getNumber()");
        assertThatThrownBy(() -> KeyTemplate.compile("{0.id.value}", method("order")))
                .hasMessageContaining("long has no property value");
        assertThatThrownBy(() -> KeyTemplate.compile("{0.}", method("order")))
                .hasMessageContaining("{0.}");
    }

    @Test
    void anUnknownPropertyIsRefusedListingThePropertiesTheTypeHas() {
        assertThatThrownBy(() -> KeyTemplate.compile("cargo:{0.id}", method("tracking")))
                .hasMessageContaining(TrackingId.class.getName() + " has no property id")
                .hasMessageContaining("its properties are: expired, idString, region");
        assertThatThrownBy(() -> KeyTemplate.compile("{0.id}", method("leg")))
                .hasMessageContaining("its properties are: from, stops, to");
        assertThatThrownBy(() -> KeyTemplate.compile("{0.id.value}", method("order")))
                .hasMessageContaining("long has no property value; it has no properties (");
    }

    @Test
    void aNullArgumentFailsTheCallInsteadOfLockingTheKeyNull() {
        KeyTemplate template = KeyTemplate.compile("order:{0}", method("two"));
        assertThatThrownBy(() -> template.render(new Object[] {null, "x"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("\"order:{0}\"")
                .hasMessageContaining("{0} is null");
    }

    @Test
    void aNullAlongAPropertyPathFailsTheCallNamingTheNullPart() {
        KeyTemplate template = KeyTemplate.compile("{0.customer.address.city}", method("order"));
        assertThatThrownBy(() -> template.render(new Object[] {new Order(1, new Customer("c", null))}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("{0.customer.address} is null");
    }

    @Test
    void placeholdersMustBeSeparatedByAPunctuationMark() {
        assertThatThrownBy(() -> KeyTemplate.compile("{0}{1}", method("two")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("{0} and {1}");
        assertThatThrownBy(() -> KeyTemplate.compile("{0}and{1}", method("two")))
                .hasMessageContaining("{0} and {1}");
    }

    @Test
    void theSourceOfTheTemplateIsItsDescription() {
        assertThat(KeyTemplate.compile("order:{0.id}", method("order"))).hasToString("order:{0.id}");
    }
}
