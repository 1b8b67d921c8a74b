package dev.steptrace.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;

/**
 * The per-step chart stays three series at any rank count: the step time's median over ranks, the kernel time's
 * median and its min-max band.
 */
class ReportChartsTest {
    @Test
    void sixtyFourRanksGiveAMedianLineAndOneBand() {
        // Rank r's step i runs 20 + r/100 + i/10 ms of kernels: per step, min is rank 0's, max rank 63's, and
        // the median lies between ranks 31 and 32 (20.315 + i/10). Its step time is 30 + r/50 ms: median 30.63.
        List<StepPoint> steps = new ArrayList<>();
        for (int r = 0; r < 64; r++) {
            for (int i = 0; i < 5; i++) {
                double ms = 20 + r / 100.0 + i / 10.0;
                steps.add(new StepPoint(r, "decode", i, "step", ms, ms, ms, null, Map.of(), 30 + r / 50.0));
            }
        }
        XYChart chart = ReportCharts.steps("Decode", "decode", steps);
        assertNotNull(chart);
        Map<String, XYSeries> series = chart.getSeriesMap();
        assertEquals(List.of("step time (median)", "min–max over 64 ranks", "kernel time (median)"),
                List.copyOf(series.keySet()));
        for (double step : series.get("step time (median)").getYData()) {
            assertEquals(30.63, step, 1e-9);
        }
        XYSeries band = series.get("min–max over 64 ranks");
        assertEquals(XYSeries.XYSeriesRenderStyle.PolygonArea, band.getXYSeriesRenderStyle());
        double[] by = band.getYData();
        assertEquals(10, by.length, "max forward, min back");
        assertEquals(20.63, by[0], 1e-9);
        assertEquals(20.0, by[9], 1e-9);
        assertEquals(20.63 + 0.4, by[4], 1e-9);
        assertEquals(20.4, by[5], 1e-9);
        double[] median = series.get("kernel time (median)").getYData();
        for (int i = 0; i < 5; i++) {
            assertEquals(20.315 + i / 10.0, median[i], 1e-9);
        }
    }

    @Test
    void oneRankIsOneLineOfEach() {
        List<StepPoint> steps = List.of(new StepPoint(3, "decode", 0, "s", 1.0, 1.0, 1.0, null, Map.of(), 4.0),
                new StepPoint(3, "decode", 1, "s", 2.0, 2.0, 2.0, null, Map.of(), 5.0));
        XYChart chart = ReportCharts.steps("Decode", "decode", steps);
        assertEquals(List.of("step time", "kernel time"), List.copyOf(chart.getSeriesMap().keySet()));
        assertEquals(List.of(4.0, 5.0), java.util.Arrays.stream(chart.getSeriesMap().get("step time").getYData()).boxed().toList());
        assertEquals(0.0, chart.getStyler().getYAxisMin(), "the y axis starts at 0");
    }

    @Test
    void withoutStepTimesOnlyKernelTime() {
        List<StepPoint> steps = List.of(new StepPoint(3, "decode", 0, "s", 1.0, 1.0, 1.0, null, Map.of(), null));
        XYChart chart = ReportCharts.steps("Decode", "decode", steps);
        assertEquals(List.of("kernel time"), List.copyOf(chart.getSeriesMap().keySet()));
    }

    @Test
    void eachRankBarIsItsStepTimeByPart() {
        // Rank 0: 6 ms of attention, 4 ms idle waiting for launches; rank 1: 5 ms attention, 5 ms waiting at collectives.
        var r0 = new BottleneckReport.RankSummary(0, Map.of("decode", rankPhase(Map.of("attention", 6.0, "idle_launch", 4.0))));
        var r1 = new BottleneckReport.RankSummary(1, Map.of("decode", rankPhase(Map.of("attention", 5.0, "comm_wait", 5.0))));
        var chart = ReportCharts.rankStepTimes("Decode", "decode", List.of(r1, r0));
        assertEquals(0.0, chart.getStyler().getYAxisMin(), "the y axis starts at 0");
        var series = chart.getSeriesMap();
        // stacked in the parts' order: work, then communication and waits, then idle time
        assertEquals(List.of("Attention", "Waiting for other ranks", "Idle: waiting for launches"),
                List.copyOf(series.keySet()));
        assertEquals(List.of(6.0, 5.0), series.get("Attention").getYData().stream().map(Number::doubleValue).toList());
        assertEquals(List.of(0.0, 5.0), series.get("Waiting for other ranks").getYData().stream().map(Number::doubleValue).toList());
        assertEquals(List.of(4.0, 0.0), series.get("Idle: waiting for launches").getYData().stream().map(Number::doubleValue).toList());
    }

    private static BottleneckReport.RankPhase rankPhase(Map<String, Double> parts) {
        List<BottleneckReport.PartShare> shares = parts.entrySet().stream()
                .map(e -> new BottleneckReport.PartShare(e.getKey(), dev.steptrace.common.StepPart.labelOf(e.getKey()),
                        e.getValue(), 10 * e.getValue()))
                .toList();
        return new BottleneckReport.RankPhase(1, new BottleneckReport.RankStepTime(
                new BottleneckReport.PerStep(10.0, 10.0, 10.0), shares), null, null, null, null, List.of());
    }
}
