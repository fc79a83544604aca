/*
 * The HTML report: one self-contained page (inline CSS, SVG and script; nothing fetched)
 * with the header facts, the kernel table (sortable by its column headers), a bar chart
 * of total time per kernel, duration histograms of the top kernels and a timeline of
 * the first events (report_html_timeline.c).
 *
 * This file puts the page together: the skeleton, its style sheet and its script, and
 * the sections in page order, each written by its part (report_html_parts.h). Everything
 * but the timeline is plain HTML and SVG, so the page reads without its script. Names
 * are escaped for HTML; the timeline's data travels as JSON in <script
 * type="application/json">, with '<', '>' and '&' escaped so no name can end the element.
 * When the script ran it sets data-hesper-script="ok" on <html> ("error: ..." when
 * something threw), which tests read back.
 */
#include "report.h"

#include <stdlib.h>

#include "report_html_parts.h"

#ifndef HESPER_VERSION
#define HESPER_VERSION "unknown"
#endif

static const char style[] =
	"<style>\n"
	":root{--fg:#1d2330;--muted:#5b6478;--line:#d9dde6;--bg:#fff;--band:#f4f6fa;--accent:#3b6fb6}\n"
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:var(--fg);background:var(--bg);"
	"margin:0 auto;max-width:1200px;padding:16px 24px}\n"
	"h1{font-size:22px;margin:4px 0}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid var(--line);"
	"padding-bottom:4px}\n"
	".sub{color:var(--muted);margin:0 0 12px}\n"
	".facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(260px,1fr));gap:6px 18px;margin:0}\n"
	".facts div{background:var(--band);border-radius:6px;padding:6px 10px}\n"
	".facts dt{color:var(--muted);font-size:12px}.facts dd{margin:0;font-weight:600;overflow-wrap:anywhere}\n"
	"table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}\n"
	"th,td{padding:4px 8px;border-bottom:1px solid var(--line);text-align:right;white-space:nowrap}\n"
	"th{background:var(--band);cursor:pointer;user-select:none;position:sticky;top:0}\n"
	"th[aria-sort=ascending]::after{content:' \\25B2'}th[aria-sort=descending]::after{content:' \\25BC'}\n"
	"td.name,th.name{text-align:left;white-space:normal;overflow-wrap:anywhere}\n"
	"tbody tr:hover{background:#eef3fb}\n"
	".note{color:var(--muted);font-size:13px}\n"
	"svg text{font:12px system-ui,sans-serif;fill:var(--fg)}svg .muted{fill:var(--muted)}\n"
	".bar{fill:var(--accent)}.hbar{fill:#59a14f}\n"
	".hists{display:grid;grid-template-columns:repeat(auto-fill,minmax(500px,1fr));gap:12px}\n"
	".hist h3{font-size:14px;margin:4px 0;overflow-wrap:anywhere}\n"
	"#timeline{position:relative;border:1px solid var(--line);border-radius:6px;overflow:hidden}\n"
	"#timeline canvas{display:block;width:100%}\n"
	"#tip{position:absolute;pointer-events:none;background:#1d2330;color:#fff;padding:4px 8px;border-radius:4px;"
	"font-size:12px;display:none;white-space:pre;max-width:600px;overflow:hidden}\n"
	"footer{margin-top:32px;color:var(--muted);font-size:12px}\n"
	"</style>\n";

static const char script[] =
	"<script>\n"
	"(function(){\n"
	"'use strict';\n"
	"var root=document.documentElement;\n"
	"function fail(msg){root.setAttribute('data-hesper-script','error: '+msg);"
	"var s=document.getElementById('status');if(s)s.textContent='page script failed: '+msg;}\n"
	"window.addEventListener('error',function(e){fail(e.message||'error');});\n"
	"function fmt(ns){var u=[['ns',1],['\\u00b5s',1e3],['ms',1e6],['s',1e9]],i=0;"
	"while(i<3&&Math.abs(ns)>=u[i+1][1])i++;var v=ns/u[i][1];"
	"return (i===0?Math.round(v):v.toPrecision(4))+' '+u[i][0];}\n"
	"function sortable(table){var ths=table.tHead.rows[0].cells;"
	"Array.prototype.forEach.call(ths,function(th,col){th.addEventListener('click',function(){"
	"var asc=th.getAttribute('aria-sort')!=='ascending',num=th.getAttribute('data-type')==='num';"
	"Array.prototype.forEach.call(ths,function(o){o.removeAttribute('aria-sort');});"
	"th.setAttribute('aria-sort',asc?'ascending':'descending');"
	"var body=table.tBodies[0],rows=Array.prototype.slice.call(body.rows);"
	"rows.sort(function(a,b){var x=a.cells[col],y=b.cells[col];if(!x||!y)return 0;"
	"var c=num?parseFloat(x.getAttribute('data-v'))-parseFloat(y.getAttribute('data-v'))"
	":x.textContent.localeCompare(y.textContent);return asc?c:-c;});"
	"rows.forEach(function(r){body.appendChild(r);});});});}\n"
	"Array.prototype.forEach.call(document.querySelectorAll('table.sortable'),sortable);\n"
	"function hue(s){var h=0;for(var i=0;i<s.length;i++)h=(h*31+s.charCodeAt(i))>>>0;return h%360;}\n"
	"function timeline(d){var box=document.getElementById('timeline');if(!d.events.length)return;"
	"var cv=document.createElement('canvas'),tip=document.getElementById('tip');box.insertBefore(cv,tip);"
	"var rowH=20,left=330,axis=22,dpr=window.devicePixelRatio||1,end=0;"
	"d.events.forEach(function(e){end=Math.max(end,e[1]+e[2]);});if(end<=0)end=1;"
	"var W=box.clientWidth||1000,H=axis+rowH*d.tracks.length+4;cv.width=W*dpr;cv.height=H*dpr;cv.style.height=H+'px';"
	"var g=cv.getContext('2d');g.scale(dpr,dpr);g.font='12px system-ui,sans-serif';"
	"var x=function(ns){return left+(W-left-10)*ns/end;};"
	"g.fillStyle='#5b6478';g.strokeStyle='#d9dde6';for(var k=0;k<8;k++){var t=end*k/8,px=x(t);"
	"g.beginPath();g.moveTo(px,axis-4);g.lineTo(px,H);g.stroke();g.fillText(fmt(t),Math.min(px+2,W-70),12);}"
	"d.tracks.forEach(function(name,i){var y=axis+i*rowH;if(i%2){g.fillStyle='#f4f6fa';g.fillRect(0,y,W,rowH);}"
	"g.fillStyle='#1d2330';g.fillText(name.length>50?name.slice(0,18)+'\\u2026'+name.slice(-31):name,6,y+14);});"
	"var kinds=['dispatch','region','batch','submit','memory','wait'];"
	"d.events.forEach(function(e){var y=axis+e[0]*rowH+3,x0=x(e[1]),w=Math.max(1,x(e[1]+e[2])-x0);"
	"g.fillStyle=e[3]===0?'hsl('+hue(e[4])+',55%,55%)':['#888','#b07aa1','#76b7b2','#f28e2b','#4e79a7','#bab0ac'][e[3]];"
	"g.fillRect(x0,y,w,rowH-6);});"
	"cv.addEventListener('mousemove',function(ev){var r=cv.getBoundingClientRect(),mx=ev.clientX-r.left,"
	"my=ev.clientY-r.top,row=Math.floor((my-axis)/rowH),hit=null;"
	"d.events.forEach(function(e){if(e[0]===row&&mx>=x(e[1])-1&&mx<=x(e[1]+e[2])+1)hit=e;});"
	"if(!hit){tip.style.display='none';return;}"
	"tip.textContent=hit[4]+' ('+kinds[hit[3]]+')\\nstart '+fmt(hit[1])+', duration '+fmt(hit[2]);"
	"tip.style.display='block';tip.style.left=Math.min(mx+12,W-300)+'px';tip.style.top=(my+12)+'px';});"
	"cv.addEventListener('mouseleave',function(){tip.style.display='none';});}\n"
	"var data=JSON.parse(document.getElementById('hesper-data').textContent);\n"
	"timeline(data);\n"
	"if(!root.hasAttribute('data-hesper-script')){root.setAttribute('data-hesper-script','ok');"
	"document.getElementById('status').textContent='';}\n"
	"})();\n"
	"</script>\n";

int
hesper_report_html(FILE *out, const struct hesper_profile *p)
{
	struct hesper_kernel **rows = NULL, **regions = NULL;
	size_t n = 0, nregions = 0;
	int ret = -1;

	if (hesper_kernel_table_rows(p->kernels, &rows, &n) != 0 ||
	    hesper_kernel_table_rows(p->regions, &regions, &nregions) != 0)
		goto out;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>Hesper: ",
	      out);
	hesper_html_text_n(out, p->exe[0] ? p->exe : "?", HESPER_NAME_MAX);
	fputs("</title>\n", out);
	fputs(style, out);
	fputs("</head>\n<body>\n<header><h1>Hesper GPU kernel summary</h1><p class=\"sub\">", out);
	hesper_html_text_n(out, p->exe[0] ? p->exe : "?", HESPER_NAME_MAX);
	fprintf(out, " &middot; pid %d &middot; ", p->pid);
	hesper_html_text_n(out, p->host[0] ? p->host : "?", HESPER_NAME_MAX);
	fputs("</p></header>\n", out);

	hesper_html_facts(out, p, n);
	if (hesper_html_findings(out, p) != 0)
		goto out;
	fputs("<section><h2>Kernels</h2>\n", out);
	hesper_html_kernel_table(out, "kernels", rows, n);
	if (nregions)
		hesper_html_region_table(out, regions, nregions);
	hesper_html_shape_table(out, rows, n);
	hesper_html_memop_table(out, p);
	fputs("</section>\n<section>\n", out);
	hesper_html_bar_chart(out, rows, n);
	fputs("</section>\n<section>\n", out);
	hesper_html_histograms(out, rows, n);
	fputs("</section>\n<section>\n", out);
	hesper_html_timeline(out, p);
	fputs("</section>\n", out);
	fputs("<footer>Hesper " HESPER_VERSION " &middot; durations are GPU time from timestamps; see the README for "
	      "what they include. <span id=\"status\">The page script has not run.</span></footer>\n",
	      out);

	fputs("<script type=\"application/json\" id=\"hesper-data\">", out);
	if (hesper_html_timeline_data(out, p) != 0)
		goto out;
	fputs("</script>\n", out);
	fputs(script, out);
	fputs("</body>\n</html>\n", out);
	ret = 0;
out:
	free(rows);
	free(regions);
	if (fflush(out) != 0 || ferror(out))
		ret = -1;
	return ret;
}
