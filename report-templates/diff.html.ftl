<#import "macros.html.ftl" as m>
<#-- steptrace diff (HTML). Data model: view (DiffView: formatted, in reading order), diff (CaptureDiff,
     raw numbers), categories (headline categories (docs/taxonomy.md)). Every ${...} is HTML-escaped text.
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
<#include "diff.css" parse=false>
</style>
</head>
<body>
<header>
  <h1>steptrace diff: <span class="capture">${view.aName}</span> <span class="vs">vs</span> <span class="capture">${view.bName}</span></h1>
  <p class="summary">A is the baseline, B the candidate; every change is B − A (negative: time saved). ${view.summary}</p>
  <nav>
    <a href="#headline">What moved</a>
    <a href="#kernels">Kernels</a>
    <a href="#collectives">Collectives</a>
    <a href="#warnings">Warnings<#if view.warnings?has_content> (${view.warnings?size})</#if></a>
    <a href="#captures">Captures</a>
    <a href="#method">Method</a>
  </nav>
</header>
<main>
<#if view.chartsNote?has_content>
<p class="note warning">${view.chartsNote}</p>
</#if>

<section id="headline">
  <h2>What moved</h2>
<#if !view.phases?has_content>
  <p class="empty">The captures have no phase in common, so there is nothing to compare.</p>
</#if>
<#list view.phases as p>
  <h3 id="${p.anchor}">${p.label}: <span class="verdict ${p.verdictClass}" data-verdict="${p.verdict}">${p.verdictLabel}</span>
    <span class="sub">${p.stepsA} steps per rank in A, ${p.stepsB} in B; ${p.significantCount} categories changed significantly</span></h3>
  <table class="verdict-table" id="verdict-${p.id}">
    <thead><tr><th>per step</th><th class="num">A ms</th><th class="num">B ms</th><th class="num">Δ ms</th><th class="num">Δ %</th><th class="num">95% interval of Δ</th><th></th></tr></thead>
    <tbody>
<#list p.headline as r>
      <tr data-quantity="${r.id}"<#if r.significant> class="sig ${r.mark}"</#if>><td>${r.label}</td><td class="num">${r.a}</td><td class="num">${r.b}</td><td class="num">${r.delta}</td><td class="num">${r.pct}</td><td class="num">${r.ci}</td><td><@mark r/></td></tr>
</#list>
    </tbody>
  </table>
<#if p.stepNote?has_content>
  <p class="step-note">${p.stepNote}</p>
</#if>
<#if p.parts?has_content>
  <table class="step-parts" id="step-parts-${p.id}" data-phase="${p.id}">
    <caption>Where the step time moved: its parts (GPU work by category, exposed communication, waiting for other ranks, GPU idle by cause; docs/reports.md, "Step time"), largest change first.</caption>
    <thead><tr><th>Part</th><th class="num">A ms / step</th><th class="num">B ms / step</th><th class="num">Δ ms</th><th class="num">Δ %</th><th class="num">95% interval of Δ</th><th class="num">noise floor</th><th></th></tr></thead>
    <tbody>
<#list p.parts as r>
      <tr data-part="${r.id}"<#if r.significant> class="sig ${r.mark}"</#if>><td><@m.swatch r.color/>${r.label}</td><td class="num">${r.a}</td><td class="num">${r.b}</td><td class="num">${r.delta}</td><td class="num">${r.pct}</td><td class="num">${r.ci}</td><td class="num">${r.floor}</td><td><@mark r/></td></tr>
</#list>
    </tbody>
  </table>
</#if>
  <table class="headline" id="headline-${p.id}" data-phase="${p.id}">
    <caption>Kernel ms per step by category (mean over ranks), largest change first. Significant: the 95% interval excludes zero and the change exceeds the noise floor. Subcategories under each category.</caption>
    <thead><tr><th>Category</th><th class="num">A ms / step</th><th class="num">B ms / step</th><th class="num">Δ ms</th><th class="num">Δ %</th><th class="num">95% interval of Δ</th><th class="num">noise floor</th><th class="num">calls A → B</th><th></th></tr></thead>
    <tbody>
<#list p.categories as c>
      <tr data-category="${c.id}" class="cat<#if c.significant> sig ${c.mark}</#if>"><td><@m.swatch c.color/>${c.label}</td><td class="num">${c.a}</td><td class="num">${c.b}</td><td class="num">${c.delta}</td><td class="num">${c.pct}</td><td class="num">${c.ci}</td><td class="num">${c.floor}</td><td class="num">${c.callsA} → ${c.callsB}</td><td><@mark c/></td></tr>
<#list c.subcategories as s>
      <tr class="subcat<#if s.significant> sig ${s.mark}</#if>" data-subcategory="${c.id}/${s.id}"><td class="indent">${s.label}</td><td class="num">${s.a}</td><td class="num">${s.b}</td><td class="num">${s.delta}</td><td class="num">${s.pct}</td><td class="num">${s.ci}</td><td class="num">${s.floor}</td><td class="num">${s.callsA} → ${s.callsB}</td><td><@mark s/></td></tr>
</#list>
<#else>
      <tr><td colspan="9" class="empty">No kernel time in this phase.</td></tr>
</#list>
    </tbody>
  </table>
  <div class="chart-row">
    <#if p.barsChart??><@m.chart ref=p.barsChart class="bars"/></#if>
    <#if p.deltasChart??><@m.chart ref=p.deltasChart class="deltas"/></#if>
  </div>
</#list>
</section>

<section id="kernels">
  <h2>Kernels that moved</h2>
  <p class="note">Matched by normalized name (addresses, generated ids and Triton suffixes masked). The largest changes in ms per step, and every kernel added, removed or called a different number of times per step.</p>
<#list view.phases as p>
  <h3>${p.label}</h3>
<#if p.kernels?has_content>
  <div class="scroll">
  <table class="kernels" id="kernels-${p.id}">
    <thead><tr><th>kernel</th><th>category</th><th class="num">A ms / step</th><th class="num">B ms / step</th><th class="num">Δ ms</th><th class="num">Δ %</th><th class="num">95% interval</th><th class="num">calls / step A → B</th><th class="num">mean µs A → B</th><th></th></tr></thead>
    <tbody>
<#list p.kernels as k>
      <tr<#if k.time.significant || k.change?has_content || k.calls.changed> class="<#if k.time.significant>sig ${k.time.mark}</#if><#if k.change?has_content> ${k.change}</#if><#if k.calls.changed> calls-changed</#if>"</#if>>
        <td class="kernel"><@m.kernelName k.name/><#if k.otherNames?has_content><details class="aliases"><summary>${k.otherNames?size} spelling<#if k.otherNames?size != 1>s</#if> in the traces</summary><#list k.otherNames as n><code class="alias">${n}</code></#list></details></#if></td>
        <td><@m.swatch k.category.color/>${k.category.label}<#if k.category.subcategory != "n/a"> <span class="note">/ ${k.category.subcategory}</span></#if></td>
        <td class="num">${k.time.a}</td><td class="num">${k.time.b}</td><td class="num">${k.time.delta}</td><td class="num">${k.time.pct}</td><td class="num">${k.time.ci}</td>
        <td class="num<#if k.calls.changed> changed</#if>">${k.calls.a} → ${k.calls.b}<#if k.calls.changed> <span class="badge calls">${k.calls.delta}</span></#if></td>
        <td class="num">${k.calls.meanUsA} → ${k.calls.meanUsB}</td>
        <td><#if k.change?has_content><span class="badge ${k.change}">${k.change}</span></#if><@mark k.time/></td>
      </tr>
</#list>
    </tbody>
  </table>
  </div>
<#else>
  <p class="empty">No kernel moved.</p>
</#if>
</#list>
</section>

<section id="collectives">
  <h2>Collectives</h2>
<#assign anyCollective = false>
<#list view.phases as p>
<#if p.collectives?has_content>
<#assign anyCollective = true>
  <h3>${p.label}</h3>
  <div class="scroll">
  <table class="collectives" id="collectives-${p.id}">
    <thead><tr><th>type</th><th class="num">calls / step A → B</th><th class="num">mean µs A → B</th><th class="num">Δ mean µs</th><th class="num">Δ %</th><th class="num">bus bandwidth GB/s A → B</th><th class="num">wait ms / step A → B</th><th class="num">transfer ms / step A → B</th><th class="num">Δ wait</th><th class="num">Δ transfer</th></tr></thead>
    <tbody>
<#list p.collectives as c>
      <tr><td><code>${c.type}</code></td><td class="num">${c.callsA} → ${c.callsB}</td><td class="num">${c.meanUsA} → ${c.meanUsB}</td><td class="num">${c.deltaMeanUs}</td><td class="num">${c.deltaMeanPct}</td><td class="num">${c.busbwA} → ${c.busbwB}</td><td class="num">${c.waitA} → ${c.waitB}</td><td class="num">${c.transferA} → ${c.transferB}</td><td class="num">${c.deltaWait}</td><td class="num">${c.deltaTransfer}</td></tr>
</#list>
    </tbody>
  </table>
  </div>
</#if>
</#list>
<#if !anyCollective>
  <p class="empty">No collectives in these captures.</p>
<#else>
  <p class="note">Wait: a collective's time beyond the fastest rank's duration for the same instance (ranks arriving late); transfer: the fastest rank's duration. Bus bandwidth needs message sizes, which CUDA-graph replays do not record.</p>
</#if>
</section>

<section id="warnings">
  <h2>Warnings</h2>
<#if view.warnings?has_content>
  <table class="warnings">
    <thead><tr><th>code</th><th>message</th></tr></thead>
    <tbody>
<#list view.warnings as w>
      <tr class="warning"><td><code>${w.code}</code></td><td>${w.message}</td></tr>
</#list>
    </tbody>
  </table>
<#else>
  <p class="empty">No warnings: the captures have the same structure.</p>
</#if>
</section>

<section id="captures">
  <h2>Captures</h2>
  <table class="facts-ab">
    <thead><tr><th></th><th>A (baseline)</th><th>B</th></tr></thead>
    <tbody>
<#list view.captures as f>
      <tr<#if f.differs> class="warning"</#if>><th>${f.label}</th><td><#if f.code><code>${f.a}</code><#else>${f.a}</#if></td><td><#if f.code><code>${f.b}</code><#else>${f.b}</#if></td></tr>
</#list>
    </tbody>
  </table>
</section>

<section id="method">
  <h2>Method</h2>
<#list view.method as line>
  <p>${line}</p>
</#list>
</section>
</main>
<footer>Written by ${view.toolName} ${view.toolVersion} (diff schema ${view.schema}). Self-contained: no scripts, no network.</footer>
</body>
</html>
<#macro mark r><#if r.mark == "faster"><span class="badge faster">faster</span><#elseif r.mark == "slower"><span class="badge slower">slower</span></#if><#t></#macro>
