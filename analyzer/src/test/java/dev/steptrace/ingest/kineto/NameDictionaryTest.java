package dev.steptrace.ingest.kineto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Past its text budget the dictionary keeps digests, not names: ids stay one per distinct name, and
 * every name whose text it does not keep is handed over once, with its id.
 */
class NameDictionaryTest {
    @Test
    void namesPastTheBudgetKeepTheirIdsAndAreSpilledOnce() {
        Map<Integer, String> spilled = new HashMap<>();
        NameDictionary d = new NameDictionary((id, buf, off, len) -> {
            String previous = spilled.put(id, new String(buf, off, len));
            assertNull(previous, "name " + id + " spilled twice");
        });
        int per = 100;
        int n = (int) (NameDictionary.TEXT_BUDGET / per) + 20_000;
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < n; i++) {
                assertEquals(i, d.idOf(name(i, per)), "round " + round + ", name " + i);
            }
        }
        assertEquals(n, d.size());
        // The text budget is reached by the name that crosses it: that one is still kept.
        int kept = d.keptTexts();
        assertEquals((NameDictionary.TEXT_BUDGET + per - 1) / per, kept);
        assertEquals(n - kept, spilled.size());
        assertEquals(name(kept, per), spilled.get(kept));
        assertEquals(name(n - 1, per), spilled.get(n - 1));
        assertEquals(name(kept - 1, per), d.name(kept - 1));
        assertNull(d.name(kept));
    }

    /** Distinct names of one length that differ only in the middle, where the sampled hash may not look. */
    private static String name(int i, int length) {
        String id = Integer.toString(i);
        String pad = "x".repeat((length - id.length()) / 2);
        return (pad + id + pad + "yy").substring(0, length);
    }
}
