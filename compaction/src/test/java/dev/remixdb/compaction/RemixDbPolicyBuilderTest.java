package dev.remixdb.compaction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

class RemixDbPolicyBuilderTest {

    @Test
    void badSettingsAreRejectedWithTheirValue() {
        assertRejected("maxTables", "1", () -> RemixDbPolicy.builder().maxTables(1));
        assertRejected("maxTables", "64", () -> RemixDbPolicy.builder().maxTables(64));
        assertRejected("splitTables", "0", () -> RemixDbPolicy.builder().splitTables(0));
        assertRejected("splitTables", "63", () -> RemixDbPolicy.builder().splitTables(63));
        assertRejected("abortBelowFraction", "-0.1", () -> RemixDbPolicy.builder().abortBelowFraction(-0.1));
        assertRejected("abortBelowFraction", "1.5", () -> RemixDbPolicy.builder().abortBelowFraction(1.5));
        assertRejected("abortBelowFraction", "NaN", () -> RemixDbPolicy.builder().abortBelowFraction(Double.NaN));
        assertRejected("runCost", "-1.0", () -> RemixDbPolicy.builder().runCost(-1));
        assertRejected("runCost", "Infinity", () -> RemixDbPolicy.builder().runCost(Double.POSITIVE_INFINITY));
        assertRejected("remixBytesPerKey", "NaN", () -> RemixDbPolicy.builder().remixBytesPerKey(Double.NaN));
        assertRejected("remixBytesPerKey", "-2.0", () -> RemixDbPolicy.builder().remixBytesPerKey(-2));
    }

    @Test
    void splitTablesMustStayBelowMaxTablesWhateverTheOrder() {
        RemixDbPolicy p = RemixDbPolicy.builder().splitTables(12).maxTables(20).build();
        assertEquals(12, p.splitTables());
        assertEquals(20, p.maxTables());
        assertRejected("splitTables", "(4)", () -> RemixDbPolicy.builder().maxTables(4).splitTables(4).build());
        assertRejected("splitTables", "(3)", () -> RemixDbPolicy.builder().splitTables(3).maxTables(2).build());
    }

    @Test
    void aRejectedValueLeavesTheBuilderAsItWas() {
        RemixDbPolicy.Builder b = RemixDbPolicy.builder().maxTables(12);
        assertThrows(IllegalArgumentException.class, () -> b.maxTables(0));
        assertEquals(12, b.build().maxTables());
    }

    private static void assertRejected(String name, String value, Executable e) {
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, e);
        assertTrue(x.getMessage().startsWith(name) && x.getMessage().contains(value), x.getMessage());
    }
}
