<#-- steptrace report index (HTML): one row per capture of the directory, linked to its report. Data
     model: rows (IndexWriter.Row: formatted), index (ReportIndex, raw). Every ${...} is HTML-escaped.
     Copy this directory and pass it to --templates DIR to change it. -->
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="${index.tool.name} ${index.tool.version}">
<title>steptrace reports: ${rows?size} captures</title>
<style>
<#include "report.css" parse=false>
</style>
</head>
<body>
<header>
  <h1>steptrace reports: ${rows?size} captures</h1>
  <p class="summary">One report per capture (per run: the rank files that belong together). The step time, its largest
  part (which may be idle time or waiting), the rank that sets the pace, the kernel time and the top kernel category are
  those of each capture's first phase (decode, else prefill, mixed, unknown).</p>
</header>
<main>
<section id="captures">
  <div class="scroll">
  <table class="index">
    <thead><tr><th>Capture</th><th>Ranks</th><th>Devices</th><th>Steps per rank</th><th>Phase</th><th class="num">Step ms</th><th>Largest part</th><th class="num">Share</th><th class="num">Pace rank</th><th class="num">Kernel ms / step</th><th>Top category</th><th class="num">Share</th><th class="num">Warnings</th></tr></thead>
    <tbody>
<#list rows as r>
      <tr><td><a href="${r.href}">${r.name}</a></td><td>${r.ranks}</td><td>${r.devices}</td><td>${r.phases}</td><td>${r.phase}</td><td class="num">${r.stepMsPerStep}</td><td>${r.topPart}</td><td class="num">${r.topPartShare}</td><td class="num">${r.paceRank}</td><td class="num">${r.kernelMsPerStep}</td><td>${r.topCategory}</td><td class="num">${r.topShare}</td><td class="num">${r.warnings}</td></tr>
</#list>
    </tbody>
  </table>
  </div>
</section>
</main>
</body>
</html>
