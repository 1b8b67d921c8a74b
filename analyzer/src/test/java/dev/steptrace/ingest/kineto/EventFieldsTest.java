package dev.steptrace.ingest.kineto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An event whose {@code ph} or {@code cat} is an array or an object is valid JSON: the value is skipped
 * whole and the list goes on (it once ended the event at the value and read the rest as list entries).
 */
class EventFieldsTest {
    @Test
    void containerValuesOfPhAndCatAreSkippedAndTheListGoesOn() throws Exception {
        String json = """
                {"traceEvents":[
                {"ph":"X","cat":["kernel"],"name":"a","pid":1,"tid":2,"ts":1,"dur":2},
                {"ph":{"ph":"X"},"cat":"kernel","name":"b","pid":1,"tid":2,"ts":3,"dur":2},
                {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":10,"dur":5,"args":{}}
                ]}""";
        List<String> kept = new ArrayList<>();
        NameDictionary names = new NameDictionary();
        ReadResult r = new KinetoReader(false).read(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)),
                names, e -> kept.add(names.name(e.nameId)));
        assertFalse(r.partial(), r.damageReason());
        // Three events in the list; "a" has no category and "b" no phase, so only "k" is kept.
        assertEquals(3, r.eventsSeen);
        assertEquals(List.of("k"), kept);
    }
}
