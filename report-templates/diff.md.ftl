<#-- steptrace diff (GitHub-flavored Markdown). Every ${...} is Markdown-escaped; md.code(text) /
     md.codeCell(text) write code spans (the latter for table cells). Data model as in diff.html.ftl,
     plus md. Charts are PNG files beside diff.md. -->
# steptrace diff: ${view.aName} vs ${view.bName}

A is the baseline, B the candidate; every change is B − A (negative: time saved). ${view.summary}
<#if view.chartsNote?has_content>

> **Note:** ${view.chartsNote}
</#if>

## What moved
<#if !view.phases?has_content>

_The captures have no phase in common, so there is nothing to compare._
</#if>
<#list view.phases as p>

### ${p.label}: **${p.verdictLabel}** (${p.stepsA} steps per rank in A, ${p.stepsB} in B)

| per step | A ms | B ms | Δ ms | Δ % | 95% interval of Δ | |
|:---|---:|---:|---:|---:|---:|:---|
<#list p.headline as r>
| ${r.label} | ${r.a} | ${r.b} | ${r.delta} | ${r.pct} | ${r.ci} | <@mark r/> |
</#list>
<#if p.stepNote?has_content>

${p.stepNote}
</#if>
<#if p.parts?has_content>

Where the step time moved: its parts, largest change first.

| Part | A ms / step | B ms / step | Δ ms | Δ % | 95% interval of Δ | noise floor | |
|:---|---:|---:|---:|---:|---:|---:|:---|
<#list p.parts as r>
| ${r.label} | ${r.a} | ${r.b} | ${r.delta} | ${r.pct} | ${r.ci} | ${r.floor} | <@mark r/> |
</#list>
</#if>

Kernel ms per step by category (mean over ranks), largest change first; subcategories indented. Significant: the 95% interval excludes zero and the change exceeds the noise floor.

| Category | A ms / step | B ms / step | Δ ms | Δ % | 95% interval of Δ | noise floor | calls A → B | |
|:---|---:|---:|---:|---:|---:|---:|---:|:---|
<#list p.categories as c>
| ${c.label} | ${c.a} | ${c.b} | ${c.delta} | ${c.pct} | ${c.ci} | ${c.floor} | ${c.callsA} → ${c.callsB} | <@mark c/> |
<#list c.subcategories as s>
| &nbsp;&nbsp;&nbsp;&nbsp;${s.label} | ${s.a} | ${s.b} | ${s.delta} | ${s.pct} | ${s.ci} | ${s.floor} | ${s.callsA} → ${s.callsB} | <@mark s/> |
</#list>
</#list>
<#if p.barsChart??>

![${p.barsChart.title}](${p.barsChart.file?no_esc})
</#if>
<#if p.deltasChart??>

![${p.deltasChart.title}](${p.deltasChart.file?no_esc})
</#if>
</#list>

## Kernels that moved

Matched by normalized name (addresses, generated ids and Triton suffixes masked). The largest changes in ms per step, and every kernel added, removed or called a different number of times per step.
<#list view.phases as p>

### ${p.label}
<#if p.kernels?has_content>

| kernel | category | A ms / step | B ms / step | Δ ms | Δ % | 95% interval | calls / step A → B | mean µs A → B | |
|:---|:---|---:|---:|---:|---:|---:|---:|---:|:---|
<#list p.kernels as k>
| ${md.codeCell(k.name.display)}<#if k.name.shortened> [${k.name.ref}]</#if> | ${k.category.label}<#if k.category.subcategory != "n/a"> / ${k.category.subcategory}</#if> | ${k.time.a} | ${k.time.b} | ${k.time.delta} | ${k.time.pct} | ${k.time.ci} | ${k.calls.a} → ${k.calls.b}<#if k.calls.changed> **(${k.calls.delta})**</#if> | ${k.calls.meanUsA} → ${k.calls.meanUsB} | <#if k.change?has_content>**${k.change}** </#if><@mark k.time/> |
</#list>
<#else>

_No kernel moved._
</#if>
</#list>
<#if view.longNames?has_content>

<details><summary>Full names of the shortened kernels</summary>

<#list view.longNames as k>
${k.ref}. ${md.code(k.full)}
</#list>

</details>
</#if>

## Collectives
<#assign anyCollective = false>
<#list view.phases as p>
<#if p.collectives?has_content>
<#assign anyCollective = true>

### ${p.label}

| type | calls / step A → B | mean µs A → B | Δ mean µs | Δ % | bus bandwidth GB/s A → B | wait ms / step A → B | transfer ms / step A → B | Δ wait | Δ transfer |
|:---|---:|---:|---:|---:|---:|---:|---:|---:|---:|
<#list p.collectives as c>
| ${md.codeCell(c.type)} | ${c.callsA} → ${c.callsB} | ${c.meanUsA} → ${c.meanUsB} | ${c.deltaMeanUs} | ${c.deltaMeanPct} | ${c.busbwA} → ${c.busbwB} | ${c.waitA} → ${c.waitB} | ${c.transferA} → ${c.transferB} | ${c.deltaWait} | ${c.deltaTransfer} |
</#list>
</#if>
</#list>
<#if !anyCollective>

_No collectives in these captures._
<#else>

Wait: a collective's time beyond the fastest rank's duration for the same instance (ranks arriving late); transfer: the fastest rank's duration.
</#if>

## Warnings
<#if view.warnings?has_content>

| code | message |
|:---|:---|
<#list view.warnings as w>
| ${md.codeCell(w.code)} | ${w.message} |
</#list>
<#else>

_No warnings: the captures have the same structure._
</#if>

## Captures

| | A (baseline) | B |
|:---|:---|:---|
<#list view.captures as f>
| <#if f.differs>**${f.label}**<#else>${f.label}</#if> | <#if f.code>${md.codeCell(f.a)}<#else>${f.a}</#if> | <#if f.code>${md.codeCell(f.b)}<#else>${f.b}</#if> |
</#list>

## Method

<#list view.method as line>
- ${line}
</#list>

---
Written by ${view.toolName} ${view.toolVersion} (diff schema ${view.schema}).
<#macro mark r><#if r.mark == "faster">**faster**<#elseif r.mark == "slower">**slower**</#if><#t></#macro>
