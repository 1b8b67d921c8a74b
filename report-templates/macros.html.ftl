<#-- Shared HTML pieces for steptrace's reports. Auto-escaping is on: every ${...} is text.
     <#t> trims a line's whitespace and newline, so a macro writes no stray line breaks into a cell. -->

<#-- A kernel name as text; long names show their start, with the full name one click away. -->
<#macro kernelName k>
<#if k.shortened>
<details class="kname"><summary><code class="kname" title="${k.full}">${k.display}</code></summary><code class="kname">${k.full}</code></details><#t>
<#else>
<code class="kname">${k.full}</code><#t>
</#if>
</#macro>

<#macro swatch color><span class="swatch" style="background:${color}"></span></#macro>

<#-- An inline SVG chart (markup drawn by steptrace, not from the trace). -->
<#macro chart ref class="">
<figure class="chart<#if class?has_content> ${class}</#if>">${ref.svg?no_esc}</figure>
</#macro>

<#macro rankMark mark>
<#if mark?contains("min")><span class="badge min" title="least compute time">min</span></#if><#if mark?contains("max")><span class="badge max" title="most compute time">max</span></#if><#t>
</#macro>
