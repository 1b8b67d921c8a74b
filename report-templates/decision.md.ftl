<#-- steptrace decision memo (GitHub-flavored Markdown). Every ${...} is Markdown-escaped;
     md.code(text) / md.codeCell(text) write code spans. Data model as in decision.html.ftl, plus md.
     Charts are PNG files beside decision.md. -->
# Decision memo: ${view.captureName}

${view.scenarioName} (scenario ${md.code(decision.scenario.source)})
<#if view.chartsNote?has_content>

> **Note:** ${view.chartsNote}
</#if>

**${view.decision?upper_case}: ${view.decisionLabel}**

${view.summary}

Question: ${view.question}

## Options

Projected step time and speedup (tokens per sequence per unit of step time) at the capture's batch size; the rest of the step as captured. An option stated as whatif changes is projected by replaying the captured steps under them (docs/whatif.md), beside Amdahl's bound for the same changes.

| option | ms / step | Amdahl bound | speedup | tokens/s per seq | admissible | verdict | why |
|:---|---:|---:|---:|---:|:---|:---|:---|
| now (the capture) | ${view.nowStep} | | 1.00x | ${view.nowTokensPerSec} | | | ${view.nowSource} |
<#list view.options as o>
| <#if o.chosen>**${o.title}**<#else>${o.title}</#if> (${md.codeCell(o.field)}) | ${o.projection.step} | ${o.projection.amdahl} | ${o.projection.speedup} | ${o.projection.tokensPerSec} | ${o.judgement.admissible} | ${o.judgement.verdictLabel} | ${o.judgement.reason} |
</#list>
<#if !view.options?has_content>

_The scenario lists no options._
</#if>
<#if view.optionsChart??>

![${view.optionsChart.title}](${view.optionsChart.file?no_esc})
</#if>
<#if view.options?has_content>

### How each projection was computed

<#list view.options as o>
- ${md.code(o.id)}: ${o.basis.derivation}. Evidence: ${o.basis.evidence}
</#list>
</#if>
<#list view.batchTables as t>

### ${t.title} by batch size

| batch | per call | ms / step | speedup | | source |
|---:|---:|---:|---:|:---|:---|
<#list t.rows as r>
| ${r.batch} | ${r.perCall} | ${r.step} | ${r.speedup} | ${r.note} | ${r.source} |
</#list>
</#list>

## The tax

| quantity | value | where it comes from |
|:---|---:|:---|
<#list view.facts as f>
| ${f.label} | ${f.value} | ${f.source} |
</#list>

<#list view.questionRows as r>
- ${r.label}: ${r.value}
</#list>

## When to revisit
<#if view.revisits?has_content>

<#list view.revisits as r>
- ${r.when} (${r.source})
</#list>
<#else>

_Nothing in the scenario says when this decision would change._
</#if>

## Checks

| check | status | value | threshold | finding | evidence |
|:---|:---|---:|---:|:---|:---|
<#list view.checks as c>
| ${md.codeCell(c.id)} ${c.title} | ${c.status} | ${c.value} | ${c.threshold} | ${c.summary} | ${c.evidence} |
</#list>

## Scenario inputs

<#list view.hardware as r>
- ${r.label}: ${r.value}
</#list>
<#list view.constraints as r>
- ${md.code(r.label)}: ${md.code(r.value)}
</#list>
<#if view.measured?has_content>

| measured | what | values | source |
|:---|:---|:---|:---|
<#list view.measured as r>
| ${md.codeCell("measured." + r.name)} | ${r.what} | ${r.values} | ${r.source} |
</#list>
</#if>
<#if view.bench??>

## Serving benchmark

Throughput plateau: **${view.bench.plateau}**. ${view.bench.evidence}

| file | max concurrency | requests/s | output tok/s | total tok/s | mean TTFT ms | mean TPOT ms | median ITL ms |
|:---|---:|---:|---:|---:|---:|---:|---:|
<#list view.bench.rows as r>
| ${md.codeCell(r.file)} | ${r.concurrency} | ${r.requestThroughput} | ${r.outputThroughput} | ${r.totalThroughput} | ${r.meanTtft} | ${r.meanTpot} | ${r.medianItl} |
</#list>
<#if view.benchChart??>

![${view.benchChart.title}](${view.benchChart.file?no_esc})
</#if>
</#if>

## Warnings
<#if view.warnings?has_content>

| code | message |
|:---|:---|
<#list view.warnings as w>
| ${md.codeCell(w.code)} | ${w.message} |
</#list>
<#else>

_No warnings._
</#if>

## Provenance

<#list view.provenance as r>
- ${r.label}: <#if r.code>${md.code(r.value)}<#else>${r.value}</#if>
</#list>

_Written by ${view.toolName} ${view.toolVersion} (decision schema ${view.schema})._
