<#-- steptrace bottleneck report (GitHub-flavored Markdown). Every ${...} is Markdown-escaped;
     md.code(text) / md.codeCell(text) write code spans (the latter for table cells). Data model as in
     report.html.ftl, plus md. Charts are PNG files beside report.md. -->
# steptrace report: ${view.captureName}

${view.summary}
<#if view.chartsNote?has_content>

> **Note:** ${view.chartsNote}
</#if>
<#if view.partialFiles?has_content>

> **Partial capture:** ${view.partialFiles?size} of its files <#if view.partialFiles?size == 1>was<#else>were</#if> read only in part (see the partial files under warnings); a rank's steps past where its file ends are not counted.
</#if>

## Where the step goes
<#if !view.phases?has_content>

_No steps were found in this capture, so there is no step time to report._
</#if>
<#list view.phases as p><#if p.stepTime??><#assign t = p.stepTime>

### ${p.label}: **${t.ms} ms** per step (median ${t.median}, p90 ${t.p90})<#if t.paceShown>, pace set by rank ${t.paceRank}</#if>

**${t.finding}**

| Part | ms / step | share |<#if t.paceShown> rank ${t.paceRank} ms | share |</#if>
|:---|---:|---:|<#if t.paceShown>---:|---:|</#if>
<#list t.parts as r>
| ${r.label} | ${r.ms} | ${r.share} |<#if t.paceShown> ${r.paceMs} | ${r.paceShare} |</#if>
</#list>
| **${t.total.label}** | **${t.total.ms}** | **${t.total.share}** |<#if t.paceShown> **${t.total.paceMs}** | **${t.total.paceShare}** |</#if>

${p.steps.label} per rank, steps from ${p.steps.source}; ${t.launches} kernel launches and ${t.graphLaunches} CUDA graph launches per step; ${t.hidden} ms per step of communication hidden under other work.<#if t.paceShown> Rank ${t.paceRank} sets the pace: ${t.paceReason}.</#if>
<#if (t.ranks?size > 1)>

| rank | step ms | work | communication | waiting | idle | idle share |
|:---|---:|---:|---:|---:|---:|---:|
<#list t.ranks as r>
| ${r.rank}<#if r.pace> **pace**</#if> | ${r.ms} | ${r.work} | ${r.comm} | ${r.waiting} | ${r.idle} | ${r.idleShare} |
</#list>
</#if>
<#if t.path?has_content>

The critical path (each rank's own chain of CPU work, launches, kernels and waits that sets the step time, mean over ranks): ${t.pathNote}

| On the critical path | ms / step | share |
|:---|---:|---:|
<#list t.path as r>
| ${r.label} | ${r.ms} | ${r.share} |
</#list>
</#if>
<#if (t.ranks?size > 1) && p.charts.ranks??>

![${p.charts.ranks.title}](${p.charts.ranks.file?no_esc})
<#elseif p.charts.steps??>

![${p.charts.steps.title}](${p.charts.steps.file?no_esc})
</#if>
</#if></#list>

## Kernel time by category
<#list view.phases as p>

### ${p.label}: ${p.steps.label} per rank, steps from ${p.steps.source}

| Category | ms / step | share | calls / step |
|:---|---:|---:|---:|
<#list p.headline.categories as c>
| ${c.label} | ${c.ms} | ${c.share} | ${c.calls} |
</#list>
| **${p.headline.total.label}** | **${p.headline.total.ms}** | **${p.headline.total.share}** | **${p.headline.total.calls}** |

Kernel time per step: mean **${p.headline.kernelMean}** ms, median ${p.headline.kernelMedian} ms, p90 ${p.headline.kernelP90} ms.
<#assign anySubs = false><#list p.headline.categories as c><#if c.subcategories?has_content><#assign anySubs = true></#if></#list>
<#if anySubs>

<details><summary>Inside each category (subcategories, share of total kernel time)</summary>

| category | subcategory | ms / step | share | calls / step |
|:---|:---|---:|---:|---:|
<#list p.headline.categories as c><#list c.subcategories as sc>
| ${c.label} | ${md.codeCell(sc.id)} | ${sc.ms} | ${sc.share} | ${sc.calls} |
</#list></#list>

</details>
</#if>
<#if p.charts.shares??>

![${p.charts.shares.title}](${p.charts.shares.file?no_esc})
</#if>
</#list>

## Per rank
<#list view.phases as p>

### ${p.label}: kernel ms per step per rank<#if p.rankTable.minRank != "n/a"> (by compute time, fastest rank ${p.rankTable.minRank}, slowest ${p.rankTable.maxRank})</#if>
<#if p.stragglers??>

<#if p.stragglers.named>**${p.stragglers.sentence}**<#else>${p.stragglers.sentence}</#if>
</#if>
<#if p.rankTable.rows?has_content>

| rank | steps | kernel ms / step | median | p90 | compute ms / step | wait ms / step | span ms / step |<#list p.rankTable.columns as c> ${c.shortLabel} |</#list>
|:---|---:|---:|---:|---:|---:|---:|---:|<#list p.rankTable.columns as c>---:|</#list>
<#list p.rankTable.rows as r>
| ${r.rank}<#if r.mark?contains("min")> **min**</#if><#if r.mark?contains("max")> **max**</#if> | ${r.steps} | ${r.kernelMean} | ${r.kernelMedian} | ${r.kernelP90} | ${r.computeMean} | ${r.waitMean} | ${r.spanMean} |<#list r.cells as cell> ${cell} |</#list>
</#list>

Compute: kernel time without the time collectives spent waiting for other ranks (wait); the min/max marks are by compute time.
<#else>

_No per-rank data._
</#if>
<#if p.stragglers?? && p.stragglers.rows?has_content>

<details><summary>Who arrives last at the collectives</summary>

| rank | last at (instances) | share of instances | others wait, ms / step | share of all wait |
|:---|---:|---:|---:|---:|
<#list p.stragglers.rows as s>
| ${s.rank}<#if s.straggler> **straggler**</#if> | ${s.lateInstances} | ${s.lateShare} | ${s.causedMs} | ${s.causedShare} |
</#list>
<#if p.stragglers.spots?has_content>

Where the straggler holds the others up most (collective type, position in the step from 0, what the straggler ran before it):

| collective | position | last at | others wait, ms / step | after |
|:---|---:|---:|---:|:---|
<#list p.stragglers.spots as w>
| ${md.codeCell(w.type)} | ${w.index} | ${w.lateShare} | ${w.causedMs} | ${w.after} |
</#list>
</#if>

</details>
</#if>
</#list>

## Per step
<#list view.phases as p>

### ${p.label}: ms per step (mean, median, p90 over each rank's steps, averaged over ranks)

| per step | mean | median | p90 | lowest rank (mean) | highest rank (mean) |
|:---|---:|---:|---:|:---|:---|
<#list p.headline.stats as s>
| ${s.label} | ${s.mean} | ${s.median} | ${s.p90} | ${s.minRank} | ${s.maxRank} |
</#list>
<#if p.charts.steps?? && !(p.stepTime?? && p.stepTime.ranks?size <= 1)>

![${p.charts.steps.title}](${p.charts.steps.file?no_esc})
</#if>
<#if p.stepTable.rows?has_content>

<details><summary>Step by step (${p.stepTable.rows?size} of ${p.stepTable.count} step<#if p.stepTable.count != 1>s</#if><#if p.stepTable.truncated>, the first ones</#if>)</summary>

Each step's timeline, every rank on one time axis for ui.perfetto.dev: the command in its row
(`steptrace report` writes the slowest step's beside this report; docs/timeline.md).

| step | name | ranks | kernel ms (mean) | min (rank) | max (rank) | span ms | busy ms | idle ms | host gap ms | timeline |
|---:|:---|---:|---:|---:|---:|---:|---:|---:|---:|:---|
<#list p.stepTable.rows as s>
| ${s.index} | ${md.codeCell(s.name)} | ${s.ranks} | ${s.kernelMean} | ${s.kernelMin} (${s.minRank}) | ${s.kernelMax} (${s.maxRank}) | ${s.span} | ${s.busy} | ${s.idle} | ${s.hostGap} | ${md.codeCell(s.timeline)} |
</#list>

</details>
</#if>
</#list>

## Collectives
<#if view.collectives?has_content>

| phase | type | calls / step | mean µs | message size (median) | bus bandwidth GB/s | wait ms / step | transfer ms / step | wait share |
|:---|:---|---:|---:|---:|---:|---:|---:|---:|
<#list view.collectives as c>
| ${c.phaseLabel} | ${md.codeCell(c.type)} | ${c.calls} | ${c.meanUs} | ${c.msgBytes} | ${c.busbw} | ${c.waitMs} | ${c.transferMs} | ${c.waitShare} |
</#list>

Wait: a collective's time beyond the fastest rank's duration for the same instance (ranks arriving late); transfer: the fastest rank's duration.
<#else>

_No collectives in this capture._
</#if>
<#assign anyOverlap = false><#list view.phases as p><#if p.overlap??><#assign anyOverlap = true></#if></#list>
<#if anyOverlap>

Communication under other work (the part of the communication kernels' time during which other GPU operations ran on other streams):

| phase | communication ms / step | hidden ms / step | exposed ms / step | hidden share |
|:---|---:|---:|---:|---:|
<#list view.phases as p><#if p.overlap??>
| ${p.label} | ${p.overlap.comm} | ${p.overlap.hidden} | ${p.overlap.exposed} | ${p.overlap.hiddenPct} |
</#if></#list>
</#if>

## Top kernels
<#list view.phases as p>

### ${p.label}
<#if p.topKernels?has_content>

| kernel | category | rule | ms / step | share | calls / step | mean µs |
|:---|:---|:---|---:|---:|---:|---:|
<#list p.topKernels as k>
| ${md.codeCell(k.name.display)}<#if k.name.shortened> [${k.name.ref}]</#if> | ${k.category}<#if k.subcategory != "n/a"> / ${k.subcategory}</#if> | ${md.codeCell(k.rule)} | ${k.ms} | ${k.share} | ${k.calls} | ${k.meanUs} |
</#list>
<#else>

_No kernels in this phase._
</#if>
</#list>

## By op, annotation and module

Kernel time by what enclosed the launch call on its thread: the innermost CPU op, user annotation and nn.Module range; a CUDA graph's kernels by what enclosed the graph launch.
<#list view.phases as p>
<#if p.contexts??>

### ${p.label}

Classified by their context rather than their name: ${p.contexts.classifiedMs} ms and ${p.contexts.classifiedCalls} kernel(s) per step.
<#list p.contexts.tables as t>

| ${t.title} | ms / step | calls / step | kernels with the most time |
|:---|---:|---:|:---|
<#list t.rows as r>
| ${md.codeCell(r.name.full)} | ${r.ms} | ${r.calls} | <#list r.kernels as k>${md.codeCell(k.display)}<#if k.shortened> [${k.ref}]</#if><#sep>, </#sep></#list> |
</#list>
<#else>

_No launch call in this phase has an op, annotation or module around it._
</#list>
</#if>
</#list>
<#if view.longNames?has_content>

<details><summary>Full names of the shortened kernels</summary>

<#list view.longNames as k>
${k.ref}. ${md.code(k.full)}
</#list>

</details>
</#if>

## How close to the hardware

Work from the trace's shapes and collective sizes, or from the model file for steps without shapes; bounds from the device's dense peak rates (docs/roofline.md). 100% of the bound is the speed of light.
<#list view.phases as p>

### ${p.label}
<#if p.roofline??>
<#assign r = p.roofline>

<#if r.peaksKnown>
GPU: **${r.device}**. Peaks used: ${r.peaks}. Source: [${r.source}](${r.sourceUrl?no_esc})<#if r.note?has_content> (${r.note})</#if>.
<#else>
GPU: **${r.device}**: unknown peak. No device entry matches, so there is no bound or floor; `--device-peaks FILE` can add one.
</#if>
<#if r.modelInfo?has_content>

Model file: ${r.modelInfo}.
</#if>

| category | ms / step | floor ms | measured / floor | TFLOP/s | GB/s | FLOPs / byte | bound | % of bound | work from | time with known work |
|:---|---:|---:|---:|---:|---:|---:|:---|---:|:---|---:|
<#list r.categories as c>
| ${c.label} | ${c.ms} | ${c.floorMs} | ${c.overFloor} | ${c.tflops} | ${c.gbps} | ${c.intensity} | ${c.bound} | ${c.pctOfBound} | ${c.source} | ${c.coverage} |
</#list>
<#if r.chart??>

![${r.chart.title}](${r.chart.file?no_esc})
</#if>
<#if r.below?has_content>

Kernels furthest below their bound:

| kernel | category | ms / step | bound ms | lost ms / step | % of bound | bound | TFLOP/s | GB/s | FLOPs / byte |
|:---|:---|---:|---:|---:|---:|:---|---:|---:|---:|
<#list r.below as k>
| ${md.codeCell(k.name.display)}<#if k.name.shortened> [${k.name.ref}]</#if> | ${k.category} | ${k.ms} | ${k.boundMs} | ${k.lostMs} | ${k.pctOfBound} | ${k.bound} | ${k.tflops} | ${k.gbps} | ${k.intensity} |
</#list>
</#if>
<#if r.floors?has_content>

<details><summary>How the floors were worked out</summary>

| category | bytes | FLOPs | floor ms | bound | derivation |
|:---|---:|---:|---:|:---|:---|
<#list r.floors as f>
| ${f.category} | ${f.bytes} | ${f.flops} | ${f.floorMs} | ${f.bound} | ${f.derivation} |
</#list>

</details>
</#if>
<#else>

_Nothing to say for this phase: no GPU name, no known work, no model file._
</#if>
</#list>

## Idle time and the CPU side
<#list view.phases as p>

### ${p.label}
<#if p.stepTime?? && p.stepTime.syncs?has_content>

Host syncs (per step, mean over ranks):

| call | issued by | calls / step | ms in the calls | GPU idle caused, ms |
|:---|:---|---:|---:|---:|
<#list p.stepTime.syncs as s>
| ${md.codeCell(s.call)} | ${md.codeCell(s.op)} | ${s.calls} | ${s.callMs} | ${s.idleMs} |
</#list>
</#if>
<#if p.stepTime?? && p.stepTime.cpuOps?has_content>

What the CPU ran while the GPU was idle (per step, mean over ranks; nested ops each count it):

| op | kind | GPU idle under it, ms / step | calls / step |
|:---|:---|---:|---:|
<#list p.stepTime.cpuOps as o>
| ${md.codeCell(o.name)} | ${o.kind} | ${o.idleMs} | ${o.calls} |
</#list>
</#if>

| | ms / step |
|:---|---:|
| span | ${p.idle.spanMean} |
| busy | ${p.idle.busyMean} |
| idle within the step | ${p.idle.idleMean} |
| GPU busy share of the span | ${p.idle.busyPct} |
| host gap before the step: mean / median / p90 | ${p.idle.hostGapMean} / ${p.idle.hostGapMedian} / ${p.idle.hostGapP90} |
<#if p.host??>
| idle waiting for the CPU to launch (share of the span) | ${p.host.launchWait} (${p.host.launchWaitPct}) |
| other idle within the step | ${p.host.otherIdle} |
| CUDA graphs | ${p.host.graphs} |
<#if p.host.replays != "0">
| GPU time between graph replays, µs: mean / median / p90 | ${p.host.replayGapMean} / ${p.host.replayGapMedian} / ${p.host.replayGapP90} |
</#if>
</#if>
<#if p.host?? && p.host.launchBound>

> **${p.label} is launch-bound:** the GPU waits for the CPU to launch work ${p.host.launchWaitPct} of the step span.
</#if>
<#if p.host?? && p.host.delays?has_content>

<details><summary>Launch delay per category (eager launches: launch call start to the operation's start)</summary>

| category | launches / step | median µs | p90 µs |
|:---|---:|---:|---:|
<#list p.host.delays as d>
| ${d.category} | ${d.launches} | ${d.medianUs} | ${d.p90Us} |
</#list>

</details>
</#if>
<#if p.idle.largestGaps?has_content>

Largest host gaps (GPU idle before the step began):

| rank | step | name | gap ms |
|---:|---:|:---|---:|
<#list p.idle.largestGaps as g>
| ${g.rank} | ${g.step} | ${md.codeCell(g.name)} | ${g.ms} |
</#list>
</#if>
</#list>

## Capture-quality warnings
<#if view.warnings?has_content>

| severity | code | message |
|:---|:---|:---|
<#list view.warnings as w>
| ${w.severity} | ${md.codeCell(w.code)} | <#if w.summary?has_content>**${w.summary}** </#if>${w.message} |
</#list>
<#else>

_No warnings._
</#if>
<#if view.partialFiles?has_content>

Partial files:

| file | reason |
|:---|:---|
<#list view.partialFiles as f>
| ${md.codeCell(f.file)} | ${f.reason} |
</#list>
</#if>

## Capture

<#list view.capture as f>
- **${f.label}:** <#if f.code>${md.code(f.value)}<#else>${f.value}</#if>
</#list>

---
Written by ${view.toolName} ${view.toolVersion} (report schema ${view.schema}).
