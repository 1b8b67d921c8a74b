<#-- steptrace report index (GitHub-flavored Markdown): one row per capture of the directory, linked to
     its report. Data model: rows (IndexWriter.Row: formatted), index (ReportIndex, raw), md. Every
     ${...} is Markdown-escaped. -->
# steptrace reports: ${rows?size} captures

One report per capture (per run: the rank files that belong together). The step time, its largest part
(which may be idle time or waiting), the rank that sets the pace, the kernel time and the top kernel category
are those of each capture's first phase (decode, else prefill, mixed, unknown).

| Capture | Ranks | Devices | Steps per rank | Phase | Step ms | Largest part | Share | Pace rank | Kernel ms / step | Top category | Share | Warnings |
|:---|:---|:---|:---|:---|---:|:---|---:|---:|---:|:---|---:|---:|
<#list rows as r>
| [${r.name}](${r.href?no_esc}) | ${r.ranks} | ${r.devices} | ${r.phases} | ${r.phase} | ${r.stepMsPerStep} | ${r.topPart} | ${r.topPartShare} | ${r.paceRank} | ${r.kernelMsPerStep} | ${r.topCategory} | ${r.topShare} | ${r.warnings} |
</#list>
