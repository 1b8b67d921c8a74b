package dev.steptrace.report;

import java.util.List;

/** What the HTML and Markdown writers render: the report and its per-step series. */
public record ReportContent(BottleneckReport report, List<StepPoint> steps) {}
