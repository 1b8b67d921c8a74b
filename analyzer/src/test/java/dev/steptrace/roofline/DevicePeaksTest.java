package dev.steptrace.roofline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The device peaks file: a source for every number, matching of real device names, unknown means unknown. */
class DevicePeaksTest {
    private static final Set<String> RATES = Set.of("bf16_tflops", "fp16_tflops", "fp8_tflops", "int8_tops",
            "hbm_gbps", "interconnect_gbps");

    @TempDir
    Path tmp;

    @Test
    void everyNumberHasASource() throws Exception {
        JsonNode root;
        try (InputStream in = DevicePeaks.class.getResourceAsStream("device-peaks.yaml")) {
            root = new ObjectMapper(new YAMLFactory()).readTree(in);
        }
        int numbers = 0;
        for (JsonNode d : root.get("devices")) {
            JsonNode source = root.get("sources").get(d.get("source").asText());
            assertNotNull(source, d.get("id") + " cites a listed source");
            assertTrue(source.get("url").asText().startsWith("https://www.nvidia.com/")
                            || source.get("url").asText().startsWith("https://resources.nvidia.com/")
                            || source.get("url").asText().startsWith("https://www.amd.com/"),
                    d.get("id") + ": the vendor's own page, not " + source.get("url"));
            assertTrue(source.get("title").asText().length() > 10, d.get("id") + " names its source");
            for (Iterator<Map.Entry<String, JsonNode>> it = d.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> f = it.next();
                if (f.getValue().isNumber()) {
                    assertTrue(RATES.contains(f.getKey()), "a number is one of the documented rates: " + f.getKey());
                    numbers++;
                }
            }
        }
        assertTrue(numbers > 60, "the devices carry their rates");
    }

    @ParameterizedTest
    @CsvSource({
        "NVIDIA H200, h200-sxm, 4800",
        "NVIDIA H200 NVL, h200-nvl, 4800",
        "NVIDIA H100 80GB HBM3, h100-sxm, 3350",
        "NVIDIA H100 PCIe, h100-pcie, 2000",
        "NVIDIA A100-SXM4-80GB, a100-sxm4-80gb, 2039",
        "NVIDIA A100-SXM4-40GB, a100-40gb, 1555",
        "NVIDIA A100 80GB PCIe, a100-pcie-80gb, 1935",
        "NVIDIA B200, b200, 7700",
        "NVIDIA GB200, gb200, 8000",
        "NVIDIA L40S, l40s, 864",
        "NVIDIA RTX PRO 6000 Blackwell Server Edition, rtx-pro-6000-blackwell, 1792",
        "AMD Instinct MI300X, mi300x, 5300",
        "AMD Instinct MI325X, mi325x, 6000",
        "AMD Instinct MI355X, mi355x, 8000",
    })
    void realDeviceNamesFindTheirEntry(String name, String id, double hbm) {
        DevicePeaks.Device d = DevicePeaks.builtIn().match(name);
        assertEquals(id, d.id());
        assertEquals(hbm, d.hbmGbps());
    }

    @Test
    void aDeviceNotInTheFileHasUnknownPeaks() {
        assertNull(DevicePeaks.builtIn().match("NVIDIA GeForce RTX 4060 Ti"));
        assertNull(DevicePeaks.builtIn().match("NVIDIA A100-PG509-200"), "an A100 board of unknown memory: no guess");
        assertNull(DevicePeaks.builtIn().match(null));
        DevicePeaks.Device rtx = DevicePeaks.builtIn().match("NVIDIA RTX PRO 6000 Blackwell Workstation Edition");
        assertNull(rtx.tflops(Precision.BF16), "a rate no source states stays unknown");
    }

    @Test
    void denseRatesAreHalfTheSparseOnesTheDatasheetsPrint() {
        DevicePeaks.Device h200 = DevicePeaks.builtIn().match("NVIDIA H200");
        assertEquals(1979 / 2.0, h200.tflops(Precision.BF16), 0.5);
        assertEquals(3958 / 2.0, h200.tflops(Precision.FP8), 0.5);
        assertEquals(450, h200.linkGbpsOneWay(), "900 GB/s NVLink, both directions together");
    }

    @Test
    void aUserFileWinsAndMayCiteBuiltInSources() throws Exception {
        Path f = tmp.resolve("peaks.yaml");
        Files.writeString(f, """
                version: 1
                devices:
                  - id: h200-measured
                    match: 'H200'
                    source: h200
                    hbm_gbps: 4300
                """);
        DevicePeaks peaks = DevicePeaks.builtIn().withUserFile(f);
        assertEquals(4300, peaks.match("NVIDIA H200").hbmGbps());
        assertNull(peaks.match("NVIDIA H200").bf16Tflops(), "the user entry says nothing of bf16: unknown, not inherited");
        assertEquals("b200", peaks.match("NVIDIA B200").id(), "other devices keep the built-in entries");
    }

    @Test
    void badUserFilesSayWhatIsWrong() throws Exception {
        assertMessage("devices:\n  - id: x\n    match: 'X'\n    hbm_gbps: 10\n", "device x: source is missing");
        assertMessage("devices:\n  - id: x\n    match: 'X'\n    source: nowhere\n", "source nowhere is not listed");
        assertMessage("devices:\n  - id: x\n    match: '('\n    source: h200\n", "match is not a valid regular expression");
        assertMessage("devices:\n  - id: x\n    match: 'X'\n    source: h200\n    hbm: 1\n", "unknown key hbm");
        assertMessage("devices:\n  - id: x\n    match: 'X'\n    source: h200\n    hbm_gbps: -3\n", "hbm_gbps must be a positive number");
        assertMessage("devices: [\n", "not valid YAML");
        RooflineFileException e = assertThrows(RooflineFileException.class,
                () -> DevicePeaks.builtIn().withUserFile(tmp.resolve("missing.yaml")));
        assertTrue(e.getMessage().endsWith("missing.yaml: no such file"), e.getMessage());
    }

    private void assertMessage(String yaml, String expected) throws Exception {
        Path f = tmp.resolve("bad.yaml");
        Files.writeString(f, yaml);
        RooflineFileException e = assertThrows(RooflineFileException.class, () -> DevicePeaks.builtIn().withUserFile(f));
        assertTrue(e.getMessage().startsWith("device peaks file " + f), e.getMessage());
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}
