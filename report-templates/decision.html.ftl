<#import "macros.html.ftl" as m>
<#-- steptrace decision memo (HTML). Data model: view (DecisionView: formatted, in reading order) and
     decision (the raw Decision, as decision.json has it). Auto-escaping is on: every ${...} is text.
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
/* decision memo */
.verdict { font-size: 17px; margin: 14px 0 6px; }
.verdict .decision { display: inline-block; padding: 2px 10px; border-radius: 4px; font-weight: 700; letter-spacing: .04em; margin-right: 8px; }
.verdict.accept .decision { background: #e8eefb; color: #1d3f86; }
.verdict.pursue .decision { background: #dff3e6; color: #1b6b3a; }
.verdict.not_applicable .decision { background: #fdf0d5; color: #7a4b00; }
table.options { min-width: 820px; }
tr.chosen td { background: #f3fbf6 !important; font-weight: 600; }
td.yes { color: #1b6b3a; } td.no { color: #9b1c1c; }
td.source, td.evidence, td.derivation { color: var(--muted); font-size: 12px; max-width: 640px; }
.status { display: inline-block; font-size: 11px; font-weight: 600; padding: 0 6px; border-radius: 8px; }
.status.ok { background: var(--min-bg); color: var(--min-fg); }
.status.warning { background: var(--warn-bg); color: #7a5a00; border: 1px solid var(--warn-line); }
.status.severe { background: var(--warn-bg); color: #8a1c1c; border: 1px solid #c24c4c; font-weight: 700; }
.status.info { background: #e8eefb; color: #1d3f86; }
ul.revisit li { margin: 4px 0; }
ul.revisit .source { color: var(--muted); font-size: 12px; }
</style>
</head>
<body>
<header>
  <h1>Decision memo: <span class="capture">${view.captureName}</span></h1>
  <p class="summary">${view.scenarioName} · scenario <code>${decision.scenario.source}</code></p>
  <nav>
    <a href="#options">Options</a>
    <a href="#facts">The tax</a>
    <a href="#revisit">When to revisit</a>
    <a href="#checks">Checks</a>
    <a href="#scenario">Scenario</a>
<#if view.bench??>    <a href="#bench">Bench</a>
</#if>    <a href="#warnings">Warnings<#if view.warnings?has_content> (${view.warnings?size})</#if></a>
    <a href="#provenance">Provenance</a>
  </nav>
</header>
<main>
<#if view.chartsNote?has_content>
<p class="note warning">${view.chartsNote}</p>
</#if>
<section id="decision">
  <p class="verdict ${view.decision}" data-decision="${view.decision}"><span class="decision">${view.decision?upper_case}</span>${view.decisionLabel}</p>
  <p>${view.summary}</p>
  <p class="note">Question: ${view.question}</p>
</section>

<section id="options">
  <h2>Options</h2>
  <table class="options" id="options-table">
    <caption>Projected step time and speedup (tokens per sequence per unit of step time) at the capture's batch size; the rest of the step as captured. An option stated as whatif changes is projected by replaying the captured steps under them, beside Amdahl's bound for the same changes.</caption>
    <thead><tr><th>option</th><th class="num">ms / step</th><th class="num">Amdahl bound</th><th class="num">speedup</th><th class="num">tokens/s per seq</th><th>admissible</th><th>verdict</th><th>why</th></tr></thead>
    <tbody>
      <tr data-option="" class="now"><td>now (the capture)</td><td class="num">${view.nowStep}</td><td></td><td class="num">1.00x</td><td class="num">${view.nowTokensPerSec}</td><td></td><td></td><td class="source">${view.nowSource}</td></tr>
<#list view.options as o>
      <tr data-option="${o.id}" data-verdict="${o.judgement.verdict}"<#if o.chosen> class="chosen"</#if>><td>${o.title} <span class="note">(${o.field})</span></td><td class="num">${o.projection.step}</td><td class="num">${o.projection.amdahl}</td><td class="num">${o.projection.speedup}</td><td class="num">${o.projection.tokensPerSec}</td><td class="${o.judgement.admissible}">${o.judgement.admissible}</td><td>${o.judgement.verdictLabel}</td><td>${o.judgement.reason}</td></tr>
<#else>
      <tr><td colspan="8" class="empty">The scenario lists no options.</td></tr>
</#list>
    </tbody>
  </table>
  <#if view.optionsChart??><@m.chart ref=view.optionsChart/></#if>
<#if view.options?has_content>
  <h3>How each projection was computed</h3>
  <table class="derivations">
    <thead><tr><th>option</th><th>projected step</th><th>evidence (the scenario's)</th></tr></thead>
    <tbody>
<#list view.options as o>
      <tr data-option="${o.id}"><td>${o.id}</td><td class="derivation">${o.basis.derivation}</td><td class="evidence">${o.basis.evidence}</td></tr>
</#list>
    </tbody>
  </table>
</#if>
<#list view.batchTables as t>
  <h3>${t.title} by batch size</h3>
  <table class="by-batch" data-option="${t.optionId}">
    <thead><tr><th class="num">batch</th><th class="num">per call</th><th class="num">ms / step</th><th class="num">Amdahl bound</th><th class="num">speedup</th><th></th><th>source</th></tr></thead>
    <tbody>
<#list t.rows as r>
      <tr<#if r.operating> class="operating"</#if>><td class="num">${r.batch}</td><td class="num">${r.perCall}</td><td class="num">${r.step}</td><td class="num">${r.speedup}</td><td>${r.note}</td><td class="source">${r.source}</td></tr>
</#list>
    </tbody>
  </table>
</#list>
</section>

<section id="facts">
  <h2>The tax</h2>
  <table class="facts">
    <thead><tr><th>quantity</th><th class="num">value</th><th>where it comes from</th></tr></thead>
    <tbody>
<#list view.facts as f>
      <tr data-fact="${f.id}"><td>${f.label}</td><td class="num">${f.value}</td><td class="source">${f.source}</td></tr>
</#list>
    </tbody>
  </table>
  <dl class="facts">
<#list view.questionRows as r>
    <dt>${r.label}</dt><dd>${r.value}</dd>
</#list>
  </dl>
</section>

<section id="revisit">
  <h2>When to revisit</h2>
<#if view.revisits?has_content>
  <ul class="revisit">
<#list view.revisits as r>
    <li data-option="${r.option}">${r.when} <span class="source">(${r.source})</span></li>
</#list>
  </ul>
<#else>
  <p class="empty">Nothing in the scenario says when this decision would change.</p>
</#if>
</section>

<section id="checks">
  <h2>Checks</h2>
  <table class="checks">
    <thead><tr><th>check</th><th>status</th><th class="num">value</th><th class="num">threshold</th><th>finding</th><th>evidence</th></tr></thead>
    <tbody>
<#list view.checks as c>
      <tr data-check="${c.id}"<#if c.status == "warning" || c.status == "severe"> class="warning"</#if>><td><code>${c.id}</code><br>${c.title}</td><td><span class="status ${c.status}">${c.status}</span></td><td class="num">${c.value}</td><td class="num">${c.threshold}</td><td>${c.summary}</td><td class="evidence">${c.evidence}</td></tr>
</#list>
    </tbody>
  </table>
</section>

<section id="scenario">
  <h2>Scenario inputs</h2>
  <h3>Hardware</h3>
  <dl class="facts">
<#list view.hardware as r>
    <dt>${r.label}</dt><dd>${r.value}</dd>
</#list>
  </dl>
  <h3>Constraints</h3>
<#if view.constraints?has_content>
  <dl class="facts">
<#list view.constraints as r>
    <dt><code>${r.label}</code></dt><dd><code>${r.value}</code></dd>
</#list>
  </dl>
<#else>
  <p class="empty">None.</p>
</#if>
  <h3>Measured inputs</h3>
<#if view.measured?has_content>
  <table class="measured">
    <thead><tr><th>name</th><th>what</th><th>values</th><th>source</th></tr></thead>
    <tbody>
<#list view.measured as r>
      <tr><td><code>measured.${r.name}</code></td><td>${r.what}</td><td>${r.values}</td><td class="source">${r.source}</td></tr>
</#list>
    </tbody>
  </table>
<#else>
  <p class="empty">None.</p>
</#if>
</section>

<#if view.bench??>
<section id="bench">
  <h2>Serving benchmark</h2>
  <p>Throughput plateau: <b>${view.bench.plateau}</b>. <span class="note">${view.bench.evidence}</span></p>
  <table class="bench">
    <thead><tr><th>file</th><th class="num">max concurrency</th><th class="num">requests/s</th><th class="num">output tok/s</th><th class="num">total tok/s</th><th class="num">mean TTFT ms</th><th class="num">mean TPOT ms</th><th class="num">median ITL ms</th></tr></thead>
    <tbody>
<#list view.bench.rows as r>
      <tr<#if r.plateau> class="chosen"</#if>><td><code>${r.file}</code></td><td class="num">${r.concurrency}</td><td class="num">${r.requestThroughput}</td><td class="num">${r.outputThroughput}</td><td class="num">${r.totalThroughput}</td><td class="num">${r.meanTtft}</td><td class="num">${r.meanTpot}</td><td class="num">${r.medianItl}</td></tr>
</#list>
    </tbody>
  </table>
  <#if view.benchChart??><@m.chart ref=view.benchChart/></#if>
</section>
</#if>

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
  <p class="empty">No warnings.</p>
</#if>
</section>

<section id="provenance">
  <h2>Provenance</h2>
  <dl class="facts">
<#list view.provenance as r>
    <dt>${r.label}</dt><dd><#if r.code><code>${r.value}</code><#else>${r.value}</#if></dd>
</#list>
  </dl>
</section>
</main>
<footer>Written by ${view.toolName} ${view.toolVersion} (decision schema ${view.schema}). Self-contained: no scripts, no network.</footer>
</body>
</html>
