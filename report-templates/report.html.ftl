<#import "macros.html.ftl" as m>
<#-- steptrace bottleneck report (HTML). Data model: view (ReportView: formatted, in reading order),
     report (BottleneckReport, raw), steps (StepPoint list), categories (headline categories (docs/taxonomy.md)).
     Copy this directory and pass it to --templates DIR to change it. -->
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="${view.toolName} ${view.toolVersion}">
<title>${view.title}</title>
<style>
<#include "report.css" parse=false>
</style>
</head>
<body>
<header>
  <h1>steptrace report: <span class="capture">${view.captureName}</span></h1>
  <p class="summary">${view.summary}</p>
  <nav>
    <a href="#step-time">Where the step goes</a>
    <a href="#headline">Kernel time</a>
    <a href="#ranks">Per rank</a>
    <a href="#steps">Per step</a>
    <a href="#collectives">Collectives</a>
    <a href="#kernels">Top kernels</a>
    <a href="#contexts">By op</a>
    <a href="#roofline">Hardware limits</a>
    <a href="#idle">Idle time and the CPU</a>
    <a href="#warnings">Warnings<#if view.warnings?has_content || view.partialFiles?has_content> (${view.warnings?size + view.partialFiles?size})</#if></a>
    <a href="#capture">Capture</a>
  </nav>
</header>
<main>
<#if view.chartsNote?has_content>
<p class="note warning">${view.chartsNote}</p>
</#if>
<#if view.partialFiles?has_content>
<p class="note warning" id="partial-capture">Partial capture: ${view.partialFiles?size} of its files <#if view.partialFiles?size == 1>was<#else>were</#if> read only in part (<a href="#warnings">partial files</a>); a rank's steps past where its file ends are not counted.</p>
</#if>

<section id="step-time">
  <h2>Where the step goes</h2>
<#if !view.phases?has_content>
  <p class="empty">No steps were found in this capture, so there is no step time to report.</p>
</#if>
<#list view.phases as p><#if p.stepTime??><#assign t = p.stepTime>
  <h3 id="step-${p.anchor}">${p.label}: <b class="step-ms">${t.ms} ms</b> per step <span class="sub">median ${t.median}, p90 ${t.p90} · ${p.steps.label} per rank · steps from ${p.steps.source}<#if t.paceShown> · pace set by rank ${t.paceRank}</#if></span></h3>
  <p class="finding" id="finding-${p.id}">${t.finding}</p>
  <div class="headline-grid">
    <table class="step-parts" id="step-parts-${p.id}" data-phase="${p.id}">
      <caption>The step time and the parts it is made of, largest first<#if t.paceShown> (mean over ranks, and rank ${t.paceRank}, which sets the pace: ${t.paceReason})</#if>. GPU work by category, exposed communication, waiting for the slowest rank, and GPU idle time by cause.</caption>
      <thead><tr><th>Part</th><th class="num">ms / step</th><th class="num">share</th><#if t.paceShown><th class="num">rank ${t.paceRank} ms</th><th class="num">share</th></#if></tr></thead>
      <tbody>
<#list t.parts as r>
        <tr class="part ${r.kind}" data-part="${r.id}"><td><@m.swatch r.color/>${r.label}</td><td class="num">${r.ms}</td><td class="num">${r.share}</td><#if t.paceShown><td class="num">${r.paceMs}</td><td class="num">${r.paceShare}</td></#if></tr>
</#list>
      </tbody>
      <tfoot><tr><th>${t.total.label}</th><td class="num">${t.total.ms}</td><td class="num">${t.total.share}</td><#if t.paceShown><td class="num">${t.total.paceMs}</td><td class="num">${t.total.paceShare}</td></#if></tr></tfoot>
    </table>
    <#if (t.ranks?size > 1)><#if p.charts.ranks??><@m.chart ref=p.charts.ranks class="step-chart"/></#if><#elseif p.charts.steps??><@m.chart ref=p.charts.steps class="step-chart"/></#if>
  </div>
  <p class="note">${t.launches} kernel launches and ${t.graphLaunches} CUDA graph launches per step; ${t.hidden} ms per step of communication ran under other work (hidden, counted in that work). How to read this: docs/reports.md, "Step time".</p>
<#if (t.ranks?size > 1)>
  <table class="rank-steps" id="rank-steps-${p.id}">
    <caption>Each rank's step: GPU work, exposed communication, waiting for other ranks, and GPU idle time, ms per step.</caption>
    <thead><tr><th>rank</th><th class="num">step ms</th><th class="num">work</th><th class="num">communication</th><th class="num">waiting</th><th class="num">idle</th><th class="num">idle share</th></tr></thead>
    <tbody>
<#list t.ranks as r>
      <tr<#if r.pace> class="pace"</#if>><td class="rank">${r.rank}<#if r.pace><span class="badge pace">sets the pace</span></#if></td><td class="num">${r.ms}</td><td class="num">${r.work}</td><td class="num">${r.comm}</td><td class="num">${r.waiting}</td><td class="num">${r.idle}</td><td class="num">${r.idleShare}</td></tr>
</#list>
    </tbody>
  </table>
</#if>
<#if t.path?has_content>
  <table class="critical-path" id="critical-path-${p.id}" data-phase="${p.id}">
    <caption>The critical path: the chain of CPU work, launches, kernels and waits that sets the step time, by part (each rank's own chain, mean over ranks; docs/whatif.md). ${t.pathNote}</caption>
    <thead><tr><th>On the critical path</th><th class="num">ms / step</th><th class="num">share</th></tr></thead>
    <tbody>
<#list t.path as r>
      <tr data-part="${r.id}"><td><@m.swatch r.color/>${r.label}</td><td class="num">${r.ms}</td><td class="num">${r.share}</td></tr>
</#list>
    </tbody>
  </table>
</#if>
</#if></#list>
</section>

<section id="headline">
  <h2>Kernel time by category</h2>
<#if !view.phases?has_content>
  <p class="empty">No steps were found in this capture, so there is no time per step to report.</p>
</#if>
<#list view.phases as p>
  <h3 id="${p.anchor}">${p.label} <span class="sub">${p.steps.label} per rank · steps from ${p.steps.source}</span></h3>
  <div class="headline-grid">
    <table class="headline" id="headline-${p.id}" data-phase="${p.id}">
      <caption>Kernel time per step by category (mean over ranks); share of total kernel time (kernels on several streams and collectives' waits each count their whole duration: this is not the step time).</caption>
      <thead><tr><th>Category</th><th class="num">ms / step</th><th class="num">share</th><th class="num">calls / step</th></tr></thead>
      <tbody>
<#list p.headline.categories as c>
        <tr data-category="${c.id}"><td><@m.swatch c.color/>${c.label}</td><td class="num">${c.ms}</td><td class="num">${c.share}</td><td class="num">${c.calls}</td></tr>
<#else>
        <tr><td colspan="4" class="empty">No kernel time in this phase.</td></tr>
</#list>
      </tbody>
      <tfoot><tr><th>${p.headline.total.label}</th><td class="num">${p.headline.total.ms}</td><td class="num">${p.headline.total.share}</td><td class="num">${p.headline.total.calls}</td></tr></tfoot>
    </table>
    <#if p.charts.shares??><@m.chart ref=p.charts.shares class="shares"/></#if>
  </div>
<#assign anySubs = false><#list p.headline.categories as c><#if c.subcategories?has_content><#assign anySubs = true></#if></#list>
<#if anySubs>
  <div class="inside" id="inside-${p.id}">
    <p class="note">Inside each category (subcategories, share of total kernel time):</p>
<#list p.headline.categories as c><#if c.subcategories?has_content>
    <details class="subcats" data-category="${c.id}"><summary><@m.swatch c.color/>${c.label} ${c.share}: ${c.subSummary}</summary>
      <table class="subcategories">
        <thead><tr><th>subcategory</th><th class="num">ms / step</th><th class="num">share</th><th class="num">calls / step</th></tr></thead>
        <tbody>
<#list c.subcategories as sc>
          <tr><td><code>${sc.id}</code></td><td class="num">${sc.ms}</td><td class="num">${sc.share}</td><td class="num">${sc.calls}</td></tr>
</#list>
        </tbody>
      </table>
    </details>
</#if></#list>
  </div>
</#if>
  <p>Kernel time per step: mean <b>${p.headline.kernelMean}</b> ms, median ${p.headline.kernelMedian} ms, p90 ${p.headline.kernelP90} ms.</p>
</#list>
</section>

<section id="ranks">
  <h2>Per rank</h2>
<#list view.phases as p>
  <h3>${p.label} <span class="sub">kernel ms per step per rank<#if p.rankTable.minRank != "n/a">; by compute time, fastest rank <b>${p.rankTable.minRank}</b>, slowest <b>${p.rankTable.maxRank}</b></#if></span></h3>
<#if p.stragglers??>
  <p class="stragglers<#if p.stragglers.named> named</#if>" id="stragglers-${p.id}">${p.stragglers.sentence}</p>
</#if>
  <div class="scroll">
  <table class="ranks" id="ranks-${p.id}">
    <thead><tr><th>rank</th><th class="num">steps</th><th class="num">kernel ms / step</th><th class="num">median</th><th class="num">p90</th><th class="num" title="kernel time without the time collectives spent waiting for other ranks">compute ms / step</th><th class="num" title="time collectives spent waiting for other ranks">wait ms / step</th><th class="num">span ms / step</th>
<#list p.rankTable.columns as c><th class="num" title="${c.label}"><@m.swatch c.color/>${c.shortLabel}</th></#list></tr></thead>
    <tbody>
<#list p.rankTable.rows as r>
      <tr<#if r.mark?has_content> class="${r.mark}"</#if>><td class="rank">${r.rank}<@m.rankMark r.mark/></td><td class="num">${r.steps}</td><td class="num">${r.kernelMean}</td><td class="num">${r.kernelMedian}</td><td class="num">${r.kernelP90}</td><td class="num">${r.computeMean}</td><td class="num">${r.waitMean}</td><td class="num">${r.spanMean}</td><#list r.cells as cell><td class="num">${cell}</td></#list></tr>
<#else>
      <tr><td colspan="${8 + p.rankTable.columns?size}" class="empty">No per-rank data.</td></tr>
</#list>
    </tbody>
  </table>
  </div>
<#if p.stragglers?? && p.stragglers.rows?has_content>
  <details class="arrivals">
    <summary>Who arrives last at the collectives</summary>
    <table class="arrivals" id="arrivals-${p.id}">
      <thead><tr><th>rank</th><th class="num">last at (instances)</th><th class="num">share of instances</th><th class="num">others wait, ms / step</th><th class="num">share of all wait</th></tr></thead>
      <tbody>
<#list p.stragglers.rows as s>
        <tr<#if s.straggler> class="straggler"</#if>><td class="rank">${s.rank}<#if s.straggler><span class="badge straggler">straggler</span></#if></td><td class="num">${s.lateInstances}</td><td class="num">${s.lateShare}</td><td class="num">${s.causedMs}</td><td class="num">${s.causedShare}</td></tr>
</#list>
      </tbody>
    </table>
<#if p.stragglers.spots?has_content>
    <table class="spots" id="spots-${p.id}">
      <caption>Where the straggler holds the others up most: the collective (type, position in the step from 0) and what the straggler ran before it.</caption>
      <thead><tr><th>collective</th><th class="num">position</th><th class="num">last at</th><th class="num">others wait, ms / step</th><th>after</th></tr></thead>
      <tbody>
<#list p.stragglers.spots as w>
        <tr><td><code>${w.type}</code></td><td class="num">${w.index}</td><td class="num">${w.lateShare}</td><td class="num">${w.causedMs}</td><td>${w.after}</td></tr>
</#list>
      </tbody>
    </table>
</#if>
    <p class="note">At each collective instance the rank with the shortest kernel arrived last; the others' time beyond it was spent waiting for it. Rule that names a straggler: docs/reports.md, "Stragglers".</p>
  </details>
</#if>
<#else>
  <p class="empty">No phases.</p>
</#list>
</section>

<section id="steps">
  <h2>Per step</h2>
<#list view.phases as p>
  <h3>${p.label} <span class="sub">ms per step: mean, median and p90 over each rank's steps, averaged over ranks</span></h3>
  <table class="stats" id="stats-${p.id}">
    <thead><tr><th>per step</th><th class="num">mean</th><th class="num">median</th><th class="num">p90</th><th>lowest rank (mean)</th><th>highest rank (mean)</th></tr></thead>
    <tbody>
<#list p.headline.stats as s>
      <tr><td>${s.label}</td><td class="num">${s.mean}</td><td class="num">${s.median}</td><td class="num">${s.p90}</td><td>${s.minRank}</td><td>${s.maxRank}</td></tr>
</#list>
    </tbody>
  </table>
  <#if p.charts.steps?? && !(p.stepTime?? && p.stepTime.ranks?size <= 1)><@m.chart ref=p.charts.steps/></#if>
<#if p.stepTable.rows?has_content>
  <details>
    <summary>Step by step (${p.stepTable.rows?size} of ${p.stepTable.count} step<#if p.stepTable.count != 1>s</#if><#if p.stepTable.truncated>, the first ones</#if>)</summary>
    <p class="note">Each step's timeline, every rank on one time axis for ui.perfetto.dev: the command in its row (<code>steptrace report</code> writes the slowest step's beside this report; docs/timeline.md).</p>
    <div class="scroll">
    <table class="step-rows">
      <thead><tr><th class="num">step</th><th>name</th><th class="num">ranks</th><th class="num">kernel ms (mean)</th><th class="num">min</th><th class="num">max</th><th class="num">span ms</th><th class="num">busy ms</th><th class="num">idle ms</th><th class="num">host gap ms</th><th>timeline</th></tr></thead>
      <tbody>
<#list p.stepTable.rows as s>
        <tr><td class="num">${s.index}</td><td><code>${s.name}</code></td><td class="num">${s.ranks}</td><td class="num">${s.kernelMean}</td><td class="num">${s.kernelMin} <span class="note">r${s.minRank}</span></td><td class="num">${s.kernelMax} <span class="note">r${s.maxRank}</span></td><td class="num">${s.span}</td><td class="num">${s.busy}</td><td class="num">${s.idle}</td><td class="num">${s.hostGap}</td><td><code class="command">${s.timeline}</code></td></tr>
</#list>
      </tbody>
    </table>
    </div>
  </details>
<#else>
  <p class="empty">No per-step data in this report.</p>
</#if>
</#list>
</section>

<section id="collectives">
  <h2>Collectives</h2>
<#if view.collectives?has_content>
  <div class="scroll">
  <table class="collectives">
    <thead><tr><th>phase</th><th>type</th><th class="num">calls / step</th><th class="num">mean µs</th><th class="num">message size (median)</th><th class="num">bus bandwidth GB/s</th><th class="num">wait ms / step</th><th class="num">transfer ms / step</th><th class="num">wait share</th></tr></thead>
    <tbody>
<#list view.collectives as c>
      <tr><td>${c.phaseLabel}</td><td><code>${c.type}</code></td><td class="num">${c.calls}</td><td class="num">${c.meanUs}</td><td class="num">${c.msgBytes}</td><td class="num">${c.busbw}</td><td class="num">${c.waitMs}</td><td class="num">${c.transferMs}</td><td class="num">${c.waitShare}</td></tr>
</#list>
    </tbody>
  </table>
  </div>
  <p class="note">Wait: a collective's time beyond the fastest rank's duration for the same instance (ranks arriving late); transfer: the fastest rank's duration.</p>
<#else>
  <p class="empty">No collectives in this capture.</p>
</#if>
<#assign anyOverlap = false><#list view.phases as p><#if p.overlap??><#assign anyOverlap = true></#if></#list>
<#if anyOverlap>
  <table class="overlap" id="overlap">
    <caption>Communication under other work: the part of the communication kernels' time (their union) during which other GPU operations ran on other streams (hidden), and the rest (exposed). Per step, mean over ranks.</caption>
    <thead><tr><th>phase</th><th class="num">communication ms / step</th><th class="num">hidden ms / step</th><th class="num">exposed ms / step</th><th class="num">hidden share</th></tr></thead>
    <tbody>
<#list view.phases as p><#if p.overlap??>
      <tr data-phase="${p.id}"><td>${p.label}</td><td class="num">${p.overlap.comm}</td><td class="num">${p.overlap.hidden}</td><td class="num">${p.overlap.exposed}</td><td class="num">${p.overlap.hiddenPct}</td></tr>
</#if></#list>
    </tbody>
  </table>
</#if>
</section>

<section id="kernels">
  <h2>Top kernels</h2>
<#list view.phases as p>
  <h3>${p.label}</h3>
<#if p.topKernels?has_content>
  <div class="scroll">
  <table class="kernels" id="kernels-${p.id}">
    <thead><tr><th>kernel</th><th>category</th><th>rule</th><th class="num">ms / step</th><th class="num">share</th><th class="num">calls / step</th><th class="num">mean µs</th></tr></thead>
    <tbody>
<#list p.topKernels as k>
      <tr><td class="kernel"><@m.kernelName k.name/></td><td><@m.swatch k.color/>${k.category}<#if k.subcategory != "n/a"> <span class="note">/ ${k.subcategory}</span></#if></td><td><code>${k.rule}</code></td><td class="num">${k.ms}</td><td class="num">${k.share}</td><td class="num">${k.calls}</td><td class="num">${k.meanUs}</td></tr>
</#list>
    </tbody>
  </table>
  </div>
<#else>
  <p class="empty">No kernels in this phase.</p>
</#if>
</#list>
</section>

<section id="contexts">
  <h2>By op, annotation and module</h2>
  <p class="note">Kernel time by what enclosed the launch call on its thread: the innermost CPU op, user annotation (record_function) and nn.Module range; a CUDA graph's kernels by what enclosed the graph launch (docs/reports.md).</p>
<#list view.phases as p>
<#if p.contexts??>
  <h3>${p.label}</h3>
  <p>Classified by their context rather than their name: ${p.contexts.classifiedMs} ms and ${p.contexts.classifiedCalls} kernel(s) per step.</p>
<#list p.contexts.tables as t>
  <div class="scroll">
  <table class="contexts" id="contexts-${p.id}-${t?index}">
    <thead><tr><th>${t.title}</th><th class="num">ms / step</th><th class="num">calls / step</th><th>kernels with the most time</th></tr></thead>
    <tbody>
<#list t.rows as r>
      <tr><td class="kernel"><@m.kernelName r.name/></td><td class="num">${r.ms}</td><td class="num">${r.calls}</td><td class="kernel"><#list r.kernels as k><@m.kernelName k/><#sep><br></#sep></#list></td></tr>
</#list>
    </tbody>
  </table>
  </div>
<#else>
  <p class="empty">No launch call in this phase has an op, annotation or module around it.</p>
</#list>
</#if>
</#list>
</section>

<section id="roofline">
  <h2>How close to the hardware</h2>
  <p class="note">Work from the trace's shapes and collective sizes, or from the model file for steps without shapes; bounds from the device's dense peak rates (docs/roofline.md). 100% of the bound is the speed of light.</p>
<#list view.phases as p>
  <h3>${p.label}</h3>
<#if p.roofline??>
<#assign r = p.roofline>
<#if r.peaksKnown>
  <p>GPU: <b>${r.device}</b>. Peaks used: ${r.peaks}. Source: <a href="${r.sourceUrl}">${r.source}</a><#if r.note?has_content> (${r.note})</#if>.</p>
<#else>
  <p class="note warning">GPU: <b>${r.device}</b>: unknown peak. No device entry matches, so there is no bound or floor; <code>--device-peaks FILE</code> can add one.</p>
</#if>
<#if r.modelInfo?has_content>
  <p>Model file: ${r.modelInfo}.</p>
</#if>
  <div class="scroll">
  <table class="roofline" id="roofline-${p.id}">
    <thead><tr><th>Category</th><th class="num">ms / step</th><th class="num">floor ms</th><th class="num">measured / floor</th><th class="num">TFLOP/s</th><th class="num">GB/s</th><th class="num">FLOPs / byte</th><th>bound</th><th class="num">% of bound</th><th>work from</th><th class="num">time with known work</th></tr></thead>
    <tbody>
<#list r.categories as c>
      <tr data-category="${c.id}"><td><@m.swatch c.color/>${c.label}</td><td class="num">${c.ms}</td><td class="num">${c.floorMs}</td><td class="num">${c.overFloor}</td><td class="num">${c.tflops}</td><td class="num">${c.gbps}</td><td class="num">${c.intensity}</td><td>${c.bound}</td><td class="num">${c.pctOfBound}</td><td>${c.source}</td><td class="num">${c.coverage}</td></tr>
</#list>
    </tbody>
  </table>
  </div>
  <#if r.chart??><@m.chart ref=r.chart class="roofline"/></#if>
<#if r.below?has_content>
  <h4>Kernels furthest below their bound</h4>
  <div class="scroll">
  <table class="kernels" id="below-bound-${p.id}">
    <thead><tr><th>kernel</th><th>category</th><th class="num">ms / step</th><th class="num">bound ms</th><th class="num">lost ms / step</th><th class="num">% of bound</th><th>bound</th><th class="num">TFLOP/s</th><th class="num">GB/s</th><th class="num">FLOPs / byte</th></tr></thead>
    <tbody>
<#list r.below as k>
      <tr><td class="kernel"><@m.kernelName k.name/></td><td><@m.swatch k.color/>${k.category}</td><td class="num">${k.ms}</td><td class="num">${k.boundMs}</td><td class="num">${k.lostMs}</td><td class="num">${k.pctOfBound}</td><td>${k.bound}</td><td class="num">${k.tflops}</td><td class="num">${k.gbps}</td><td class="num">${k.intensity}</td></tr>
</#list>
    </tbody>
  </table>
  </div>
</#if>
<#if r.floors?has_content>
  <details><summary>How the floors were worked out</summary>
  <table class="floors">
    <thead><tr><th>Category</th><th class="num">bytes</th><th class="num">FLOPs</th><th class="num">floor ms</th><th>bound</th><th>derivation</th></tr></thead>
    <tbody>
<#list r.floors as f>
      <tr><td>${f.category}</td><td class="num">${f.bytes}</td><td class="num">${f.flops}</td><td class="num">${f.floorMs}</td><td>${f.bound}</td><td>${f.derivation}</td></tr>
</#list>
    </tbody>
  </table>
  </details>
</#if>
<#else>
  <p class="empty">Nothing to say for this phase: no GPU name, no known work, no model file.</p>
</#if>
</#list>
</section>

<section id="idle">
  <h2>Idle time and the CPU side</h2>
<#list view.phases as p>
  <h3>${p.label}</h3>
<#if p.stepTime??>
<#if p.stepTime.syncs?has_content>
  <table class="syncs" id="syncs-${p.id}">
    <caption>Host syncs: calls that block the CPU until the GPU has finished its queued work, by the CPU op that issued them, per step (mean over ranks), with the GPU idle time they caused.</caption>
    <thead><tr><th>call</th><th>issued by</th><th class="num">calls / step</th><th class="num">ms in the calls</th><th class="num">GPU idle caused, ms</th></tr></thead>
    <tbody>
<#list p.stepTime.syncs as s>
      <tr><td><code>${s.call}</code></td><td><code>${s.op}</code></td><td class="num">${s.calls}</td><td class="num">${s.callMs}</td><td class="num">${s.idleMs}</td></tr>
</#list>
    </tbody>
  </table>
</#if>
<#if p.stepTime.cpuOps?has_content>
  <table class="cpu-ops" id="cpu-ops-${p.id}">
    <caption>What the CPU ran while the GPU was idle: CPU ops by the GPU idle time they overlapped, per step (mean over ranks; nested ops each count it).</caption>
    <thead><tr><th>op</th><th>kind</th><th class="num">GPU idle under it, ms / step</th><th class="num">calls / step</th></tr></thead>
    <tbody>
<#list p.stepTime.cpuOps as o>
      <tr><td><code>${o.name}</code></td><td>${o.kind}</td><td class="num">${o.idleMs}</td><td class="num">${o.calls}</td></tr>
</#list>
    </tbody>
  </table>
</#if>
</#if>
  <table class="idle" id="idle-${p.id}">
    <tbody>
      <tr><th>span ms / step</th><td class="num">${p.idle.spanMean}</td></tr>
      <tr><th>busy ms / step</th><td class="num">${p.idle.busyMean}</td></tr>
      <tr><th>idle within the step, ms / step</th><td class="num">${p.idle.idleMean}</td></tr>
      <tr><th>GPU busy share of the span</th><td class="num">${p.idle.busyPct}</td></tr>
      <tr><th>host gap before the step, ms (mean / median / p90)</th><td class="num">${p.idle.hostGapMean} / ${p.idle.hostGapMedian} / ${p.idle.hostGapP90}</td></tr>
<#if p.host??>
      <tr><th>idle waiting for the CPU to launch, ms / step (share of the span)</th><td class="num">${p.host.launchWait} (${p.host.launchWaitPct})</td></tr>
      <tr><th>other idle within the step, ms / step</th><td class="num">${p.host.otherIdle}</td></tr>
      <tr><th>CUDA graphs</th><td>${p.host.graphs}</td></tr>
<#if p.host.replays != "0">
      <tr><th>GPU time between graph replays, µs (mean / median / p90)</th><td class="num">${p.host.replayGapMean} / ${p.host.replayGapMedian} / ${p.host.replayGapP90}</td></tr>
</#if>
</#if>
    </tbody>
  </table>
<#if p.host?? && p.host.launchBound>
  <p class="note warning launch-bound" id="launch-bound-${p.id}">${p.label} is launch-bound: the GPU waits for the CPU to launch work ${p.host.launchWaitPct} of the step span.</p>
</#if>
<#if p.host?? && p.host.delays?has_content>
  <details class="delays">
    <summary>Launch delay per category (eager launches: launch call start to the operation's start)</summary>
    <table class="delays" id="delays-${p.id}">
      <thead><tr><th>category</th><th class="num">launches / step</th><th class="num">median µs</th><th class="num">p90 µs</th></tr></thead>
      <tbody>
<#list p.host.delays as d>
        <tr><td><@m.swatch d.color/>${d.category}</td><td class="num">${d.launches}</td><td class="num">${d.medianUs}</td><td class="num">${d.p90Us}</td></tr>
</#list>
      </tbody>
    </table>
    <p class="note">A long delay means the CPU runs ahead and the GPU is the limit; a delay of a few µs with much idle waiting for launches means the GPU waits for the CPU.</p>
  </details>
</#if>
<#if p.idle.largestGaps?has_content>
  <table class="gaps">
    <caption>Largest host gaps: GPU idle before the step began.</caption>
    <thead><tr><th class="num">rank</th><th class="num">step</th><th>name</th><th class="num">gap ms</th></tr></thead>
    <tbody>
<#list p.idle.largestGaps as g>
      <tr><td class="num">${g.rank}</td><td class="num">${g.step}</td><td><code>${g.name}</code></td><td class="num">${g.ms}</td></tr>
</#list>
    </tbody>
  </table>
</#if>
</#list>
</section>

<section id="warnings">
  <h2>Capture-quality warnings</h2>
<#if view.warnings?has_content>
  <table class="warnings">
    <thead><tr><th>severity</th><th>code</th><th>message</th></tr></thead>
    <tbody>
<#list view.warnings as w>
      <tr class="warning ${w.severity}"><td>${w.severity}</td><td><code>${w.code}</code></td><td><#if w.summary?has_content><b>${w.summary}</b> </#if>${w.message}</td></tr>
</#list>
    </tbody>
  </table>
<#else>
  <p class="empty">No warnings.</p>
</#if>
<#if view.partialFiles?has_content>
  <h3>Partial files</h3>
  <table class="partial">
    <thead><tr><th>file</th><th>reason</th></tr></thead>
    <tbody>
<#list view.partialFiles as f>
      <tr class="warning"><td><code>${f.file}</code></td><td>${f.reason}</td></tr>
</#list>
    </tbody>
  </table>
</#if>
</section>

<section id="capture">
  <h2>Capture</h2>
  <dl class="facts">
<#list view.capture as f>
    <dt>${f.label}</dt><dd><#if f.code><code>${f.value}</code><#else>${f.value}</#if></dd>
</#list>
  </dl>
</section>
</main>
<footer>Written by ${view.toolName} ${view.toolVersion} (report schema ${view.schema}). Self-contained: no scripts, no network.</footer>
</body>
</html>
