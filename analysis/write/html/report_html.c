/*
 * The HTML report: one self-contained page (inline CSS, SVG and script; nothing fetched)
 * with the header facts, the kernel table (sortable by its column headers), a bar chart
 * of total time per kernel, duration histograms of the top kernels and a timeline that
 * zooms, with its legend (report_html_timeline.c).
 *
 * This file puts the page together: the skeleton, its style sheet and its script, and
 * the sections in page order, each written by its part (report_html_parts.h). Everything
 * but the timeline is plain HTML and SVG, so the page reads without its script. Names
 * are escaped for HTML; the timeline's data travels as JSON in <script
 * type="application/json">, with '<', '>' and '&' escaped so no name can end the element.
 * When the script ran it sets data-hesper-script="ok" on <html> ("error: ..." when
 * something threw), which tests read back.
 */
#include "write/write.h"

#include <stdlib.h>

#include "report_html_parts.h"
#include "profile/profile.h"

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
	"td.name,th.name{text-align:left;white-space:normal;overflow-wrap:break-word}\n"
	"tbody tr:hover{background:#eef3fb}\n"
	".note{color:var(--muted);font-size:13px}\n"
	"svg text{font:12px system-ui,sans-serif;fill:var(--fg)}svg .muted{fill:var(--muted)}\n"
	".bar{fill:var(--accent)}.hbar{fill:#59a14f}\n"
	".heat{display:inline-block;height:10px;background:#e15759;vertical-align:middle}\n"
	"pre.code{margin:2px 0 8px 16px;font-size:12px;color:var(--muted)}\n"
	"table.listing td{padding:0 6px}table.listing pre{margin:0;font-size:12px}\n"
	".hists{display:grid;grid-template-columns:repeat(auto-fill,minmax(500px,1fr));gap:12px}\n"
	".hist h3{font-size:14px;margin:4px 0;overflow-wrap:anywhere}\n"
	"#timeline{position:relative;border:1px solid var(--line);border-radius:6px;overflow:hidden}\n"
	".tl-bar{display:flex;gap:6px;align-items:center;padding:6px;border-bottom:1px solid var(--line)}\n"
	".tl-bar button{font:inherit;min-width:32px;padding:2px 8px;cursor:pointer}.tl-range{color:var(--muted)}\n"
	".rtree details{margin-left:1.2em}.rtree>details{margin-left:0}.rtree summary{cursor:pointer}"
	".rname{font-weight:600}.rnum{color:var(--muted,#666);font-size:12px;margin-left:.5em}"
	".rkernels{margin:2px 0 4px 1.2em;padding-left:1em;font-size:13px}\n"
	".tl-body{display:flex}.tl-labels{flex:none;width:330px;font-size:12px;border-right:1px solid var(--line)}\n"
	".tl-label{height:20px;line-height:20px;padding:0 6px;white-space:nowrap;overflow:hidden;"
	"text-overflow:ellipsis}.tl-label:nth-child(even){background:var(--band)}\n"
	".tl-plot{position:relative;flex:1;min-width:0}\n"
	"#timeline canvas{display:block;width:100%;cursor:grab}\n"
	".tl-legend{list-style:none;display:flex;flex-wrap:wrap;gap:4px 16px;margin:0;padding:6px;"
	"border-top:1px solid var(--line);font-size:12px}\n"
	".tl-swatch{display:inline-block;width:12px;height:12px;border-radius:2px;margin-right:4px;"
	"vertical-align:-2px}\n"
	"#tip{position:absolute;pointer-events:none;background:#1d2330;color:#fff;padding:4px 8px;border-radius:4px;"
	"font-size:12px;display:none;white-space:pre;max-width:600px;overflow:hidden}\n"
	"footer{margin-top:32px;color:var(--muted);font-size:12px}\n"
	"</style>\n";

/* clang-format off */
static const char script[] =
	"<script>\n"
	"(function(){\n"
	"'use strict';\n"
	"var root=document.documentElement;\n"
	"function fail(msg){root.setAttribute('data-hesper-script','error: '+msg);var s=document.getElementById('status');if(s)s.textContent='page script failed: '+msg;}\n"
	"window.addEventListener('error',function(e){fail(e.message||'error');});\n"
	"function fmt(ns){var u=[['ns',1],['\\u00b5s',1e3],['ms',1e6],['s',1e9]],i=0;while(i<3&&Math.abs(ns)>=u[i+1][1])i++;var v=ns/u[i][1];return (i===0?Math.round(v):v.toPrecision(4))+' '+u[i][0];}\n"
	"function el(tag,cls,text){var e=document.createElement(tag);if(cls)e.className=cls;if(text!==undefined)e.textContent=text;return e;}\n"
	"function sortable(table){var ths=table.tHead.rows[0].cells;\n"
	"Array.prototype.forEach.call(ths,function(th,col){th.addEventListener('click',function(){\n"
	"var asc=th.getAttribute('aria-sort')!=='ascending',num=th.getAttribute('data-type')==='num';\n"
	"Array.prototype.forEach.call(ths,function(o){o.removeAttribute('aria-sort');});\n"
	"th.setAttribute('aria-sort',asc?'ascending':'descending');\n"
	"var body=table.tBodies[0],rows=Array.prototype.slice.call(body.rows);\n"
	"rows.sort(function(a,b){var x=a.cells[col],y=b.cells[col];if(!x||!y)return 0;\n"
	"var c=num?parseFloat(x.getAttribute('data-v'))-parseFloat(y.getAttribute('data-v')):x.textContent.localeCompare(y.textContent);return asc?c:-c;});\n"
	"rows.forEach(function(r){body.appendChild(r);});});});}\n"
	"Array.prototype.forEach.call(document.querySelectorAll('table.sortable'),sortable);\n"
	"function hue(s){var h=0;for(var i=0;i<s.length;i++)h=(h*31+s.charCodeAt(i))>>>0;return h%360;}\n"
	"/* The first index of @a (ascending) whose value is >= @v. */\n"
	"function lower(a,v){var lo=0,hi=a.length;while(lo<hi){var m=(lo+hi)>>1;if(a[m]<v)lo=m+1;else hi=m;}return lo;}\n"
	"function timeline(d){\n"
	"var box=document.getElementById('timeline'),tip=document.getElementById('tip');if(!d.events.length)return;\n"
	"var T=d.tracks.length,rowH=20,axis=22,per=[],reach=[],end=1,count={},k;\n"
	"for(k=0;k<T;k++){per.push([]);reach.push([]);}\n"
	"d.events.forEach(function(e){per[e[0]].push(e);end=Math.max(end,e[1]+e[2]);var key=e[3]+':'+e[4];count[key]=(count[key]||0)+1;});\n"
	"/* Per track, the latest end so far: the first event that can reach into a view is found by halving. */\n"
	"per.forEach(function(a,i){var m=-1;a.forEach(function(e){m=Math.max(m,e[1]+e[2]);reach[i].push(m);});});\n"
	"function colour(e){return e[3]===0?'hsl('+hue(d.names[e[4]])+',55%,55%)':d.kinds[e[3]].colour;}\n"
	"var bar=el('div','tl-bar'),range=el('span','tl-range');\n"
	"function button(label,title,fn){var b=el('button','',label);b.type='button';b.title=title;b.addEventListener('click',fn);bar.appendChild(b);}\n"
	"var v0=0,v1=end;\n"
	"button('\\u2212','zoom out',function(){zoom((v0+v1)/2,2);});\n"
	"button('+','zoom in',function(){zoom((v0+v1)/2,0.5);});\n"
	"button('whole run','show the whole run',function(){v0=0;v1=end;draw();});\n"
	"bar.appendChild(range);\n"
	"var body=el('div','tl-body'),labels=el('div','tl-labels'),plot=el('div','tl-plot'),cv=document.createElement('canvas');\n"
	"labels.style.paddingTop=axis+'px';\n"
	"/* Long names keep their ends: the device's name begins them, what the row holds ends them. */\n"
	"d.tracks.forEach(function(name){var s=name.replace(/ queue family (\\d+) index (\\d+)/,' q$1.$2'),l=el('div','tl-label',s.length>44?s.slice(0,14)+'\\u2026'+s.slice(-29):s);l.title=name;labels.appendChild(l);});\n"
	"plot.appendChild(cv);plot.appendChild(tip);body.appendChild(labels);body.appendChild(plot);\n"
	"box.appendChild(bar);box.appendChild(body);\n"
	"var legend=el('ul','tl-legend');\n"
	"function swatch(c,text){var li=el('li'),s=el('span','tl-swatch');s.style.background=c;li.appendChild(s);li.appendChild(document.createTextNode(text));legend.appendChild(li);}\n"
	"var kindsSeen={},kernels=[];\n"
	"Object.keys(count).forEach(function(key){var p=key.split(':'),kind=+p[0];kindsSeen[kind]=(kindsSeen[kind]||0)+count[key];if(kind===0)kernels.push([count[key],d.names[+p[1]]]);});\n"
	"d.kinds.forEach(function(kd,i){if(!kindsSeen[i])return;if(i===0)swatch('linear-gradient(90deg,hsl(0,55%,55%),hsl(120,55%,55%),hsl(240,55%,55%))',kd.name+': one colour per kernel ('+kindsSeen[i]+')');else swatch(kd.colour,kd.name+' ('+kindsSeen[i]+')');});\n"
	"kernels.sort(function(a,b){return b[0]-a[0];});\n"
	"kernels.slice(0,10).forEach(function(kr){swatch('hsl('+hue(kr[1])+',55%,55%)',kr[1]+' ('+kr[0]+')');});\n"
	"if(kernels.length>10)legend.appendChild(el('li','',(kernels.length-10)+' more kernels'));\n"
	"box.appendChild(legend);\n"
	"var g=cv.getContext('2d'),W=0,scale=1;\n"
	"function zoom(at,f){var w=Math.min(end,Math.max(100,(v1-v0)*f));v0=at-(at-v0)*w/(v1-v0);v1=v0+w;if(v0<0){v1-=v0;v0=0;}if(v1>end){v0=Math.max(0,v0-(v1-end));v1=end;}draw();}\n"
	"/* A round tick step that gives at most about eight ticks. */\n"
	"function step(span){var s=Math.pow(10,Math.floor(Math.log10(span/8))),r=span/8/s;return s*(r<=1?1:r<=2?2:r<=5?5:10);}\n"
	"function draw(){\n"
	"var dpr=window.devicePixelRatio||1,H=axis+rowH*T+4;W=plot.clientWidth||900;\n"
	"cv.width=Math.round(W*dpr);cv.height=Math.round(H*dpr);cv.style.height=H+'px';\n"
	"g.setTransform(dpr,0,0,dpr,0,0);g.clearRect(0,0,W,H);g.font='12px system-ui,sans-serif';\n"
	"scale=(W-10)/(v1-v0);\n"
	"var st=step(v1-v0),inView=0,t;\n"
	"g.strokeStyle='#d9dde6';g.fillStyle='#5b6478';\n"
	"for(t=Math.ceil(v0/st)*st;t<=v1;t+=st){var px=(t-v0)*scale;g.beginPath();g.moveTo(px,axis-4);g.lineTo(px,H);g.stroke();if(px+60<W)g.fillText(fmt(t),px+2,12);}\n"
	"for(var i=0;i<T;i++){\n"
	"var y=axis+i*rowH,a=per[i],last=-1;if(i%2){g.fillStyle='#f4f6fa';g.fillRect(0,y,W,rowH);}\n"
	"for(var j=lower(reach[i],v0);j<a.length&&a[j][1]<=v1;j++){var e=a[j],x0=Math.max(0,(e[1]-v0)*scale),x1=(e[1]+e[2]-v0)*scale;\n"
	"if(x1<0)continue;inView++;\n"
	"/* Narrower than a pixel already drawn on this row: it shares that pixel. */\n"
	"if(Math.floor(x1)<=last&&x1-x0<1)continue;last=Math.floor(x1);\n"
	"g.fillStyle=colour(e);g.fillRect(x0,y+3,Math.max(1,x1-x0),rowH-6);}}\n"
	"range.textContent=fmt(v0)+' \\u2013 '+fmt(v1)+' ('+fmt(v1-v0)+', '+inView+' of '+d.events.length+' events in view)';\n"
	"box.setAttribute('data-view',v0+' '+v1+' '+inView);}\n"
	"function at(mx){return v0+mx/scale;}\n"
	"cv.addEventListener('wheel',function(ev){ev.preventDefault();var r=cv.getBoundingClientRect();zoom(at(ev.clientX-r.left),ev.deltaY<0?0.8:1.25);},{passive:false});\n"
	"cv.addEventListener('dblclick',function(ev){var r=cv.getBoundingClientRect();zoom(at(ev.clientX-r.left),0.5);});\n"
	"var drag=null;\n"
	"cv.addEventListener('mousedown',function(ev){drag={x:ev.clientX,v0:v0,v1:v1};ev.preventDefault();});\n"
	"window.addEventListener('mouseup',function(){drag=null;});\n"
	"cv.addEventListener('mousemove',function(ev){var r=cv.getBoundingClientRect(),mx=ev.clientX-r.left,my=ev.clientY-r.top;\n"
	"if(drag&&ev.buttons){var dv=(drag.x-ev.clientX)/scale,w=drag.v1-drag.v0;v0=Math.min(Math.max(0,drag.v0+dv),end-w);v1=v0+w;draw();tip.style.display='none';return;}\n"
	"var row=Math.floor((my-axis)/rowH),hit=null;\n"
	"if(row>=0&&row<T){var a=per[row],tol=2/scale,tm=at(mx);\n"
	"for(var j=lower(reach[row],tm-tol);j<a.length&&a[j][1]<=tm+tol;j++)if(a[j][1]+a[j][2]>=tm-tol)hit=a[j];}\n"
	"if(!hit){tip.style.display='none';return;}\n"
	"tip.textContent=d.names[hit[4]]+' ('+d.kinds[hit[3]].name+')\\n'+d.tracks[row]+'\\nstart '+fmt(hit[1])+', duration '+fmt(hit[2]);\n"
	"tip.style.display='block';tip.style.left=Math.min(mx+12,W-300)+'px';tip.style.top=(my+12)+'px';});\n"
	"cv.addEventListener('mouseleave',function(){tip.style.display='none';});\n"
	"window.addEventListener('resize',draw);\n"
	"/* #t=FROM,TO (ns from the start) in the address opens the page zoomed to that range. */\n"
	"var h=/[#&]t=(\\d+(?:\\.\\d+)?),(\\d+(?:\\.\\d+)?)/.exec(location.hash);\n"
	"if(h&&+h[2]>+h[1]&&+h[1]<end){v0=+h[1];v1=Math.min(end,+h[2]);}\n"
	"draw();}\n"
	"var data=JSON.parse(document.getElementById('hesper-data').textContent);\n"
	"timeline(data);\n"
	"if(!root.hasAttribute('data-hesper-script')){root.setAttribute('data-hesper-script','ok');document.getElementById('status').textContent='';}\n"
	"})();\n"
	"</script>\n";
/* clang-format on */

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
	if (p->label_paths && hesper_kernel_table_size(p->label_paths)) {
		struct hesper_region_tree tree;

		if (hesper_region_tree_build(p->label_paths, p->label_kernels, &tree) != 0)
			goto out;
		hesper_html_region_tree(out, &tree);
		hesper_region_tree_free(&tree);
	}
	hesper_html_shape_table(out, p, rows, n);
	hesper_html_pipeline_stats(out, p);
	hesper_html_lines(out, p);
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
