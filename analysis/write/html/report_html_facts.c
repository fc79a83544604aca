/*
 * The HTML report's facts and findings (report_html_parts.h): the header's grid of what
 * ran where and what Hesper cost, then the findings (findings.c), largest time at stake
 * first, and the host waits that explain some of them.
 */
#include "report_html_parts.h"

#include <inttypes.h>
#include <math.h>

#include "findings/findings.h"
#include "write/write.h"

static void
put_fact(FILE *out, const char *title, const char *value)
{
	fprintf(out, "<div><dt>%s</dt><dd>", title);
	hesper_html_text(out, value);
	fputs("</dd></div>\n", out);
}

void
hesper_html_facts(FILE *out, const struct hesper_profile *p, size_t nkernels)
{
	struct hesper_profile_summary sum = hesper_profile_summary(p);
	uint64_t busy = hesper_profile_gpu_busy_ns(p);
	char v[2 * HESPER_NAME_MAX + 128], a[CELL], b[CELL], c[CELL];

	fputs("<section id=\"facts\"><dl class=\"facts\">\n", out);
	snprintf(v, sizeof(v), "%.*s (pid %d)", HESPER_NAME_MAX, p->exe[0] ? p->exe : "?", p->pid);
	put_fact(out, "program", v);
	put_fact(out, "host", p->host[0] ? p->host : "?");
	for (size_t i = 0; i < p->device_count; i++) {
		snprintf(v, sizeof(v), p->devices[i].driver[0] ? "%.*s (%.*s)" : "%.*s", HESPER_NAME_MAX,
			 p->devices[i].name, HESPER_NAME_MAX, p->devices[i].driver);
		put_fact(out, "device", v);
	}
	if (p->device_count == 0)
		put_fact(out, "device", "none seen");
	put_fact(out, "wall time", hesper_html_duration(a, (double)p->wall_ns));
	uint64_t busy_wall = hesper_profile_busy_wall_ns(p);
	if (busy_wall)
		snprintf(v, sizeof(v), "%s (%.1f%% of %s)", hesper_html_duration(a, (double)busy),
			 100.0 * (double)busy / (double)busy_wall,
			 p->capture.set ? "the capture window's wall time" : "wall time");
	else
		snprintf(v, sizeof(v), "%s", hesper_html_duration(a, (double)busy));
	put_fact(out, "GPU busy", v);
	snprintf(v, sizeof(v), "%zu", hesper_profile_kernel_count(p, nkernels));
	put_fact(out, "kernels", v);
	snprintf(v, sizeof(v), "%" PRIu64 ": %" PRIu64 " timed", sum.dispatches, sum.events);
	put_fact(out, "dispatches", v);
	snprintf(v, sizeof(v), "%" PRIu64 " dropped, %" PRIu64 " clamped", p->dropped, p->clamped);
	put_fact(out, "not timed", v);
	if (!p->from_events) {
		if (p->sample_every > 1)
			snprintf(v, sizeof(v), "%.31s, sample every %" PRIu32, p->mode[0] ? p->mode : "?",
				 p->sample_every);
		else
			snprintf(v, sizeof(v), "%.31s", p->mode[0] ? p->mode : "?");
		put_fact(out, "mode", v);
		if (hesper_rows_words(p)) {
			snprintf(v, sizeof(v), "%zu, %s", nkernels, hesper_rows_words(p));
			put_fact(out, "rows", v);
		}
		snprintf(v, sizeof(v),
			 "%" PRIu64 " timestamps written, %s host time in hooks, %s turning results into events",
			 p->timestamps_written, hesper_html_duration(b, (double)p->hook_ns),
			 hesper_html_duration(c, (double)p->collector_ns));
		put_fact(out, "Hesper's cost", v);
	}
	snprintf(v, sizeof(v), "%zu kept, %" PRIu64 " left out%s", p->trace.count, p->trace.left_out,
		 p->trace.count ? (p->trace.calibrated ? ", GPU times placed on the host's clock"
						       : ", GPU times on the GPU's clock alone (no calibration)")
				: "");
	put_fact(out, "timeline events", v);
	fputs("</dl></section>\n", out);
}

/* The findings, largest time at stake first, and the host-wait table; nothing when there are none. */
int
hesper_html_findings(FILE *out, const struct hesper_profile *p)
{
	struct hesper_findings f;
	char a[CELL], b[CELL], c[CELL], num[2 * CELL];

	if (hesper_findings_compute(p, &f) != 0)
		return -1;
	if (f.count) {
		fputs("<section id=\"findings\"><h2>Findings</h2>\n<ol>\n", out);
		for (size_t i = 0; i < f.count; i++) {
			const struct hesper_finding *x = &f.items[i];

			fprintf(out, "<li data-kind=\"%s\"><b>%s</b>, ", hesper_finding_kind_name(x->kind),
				hesper_finding_kind_name(x->kind));
			hesper_html_text(out, x->about);
			fprintf(out, ": %s at stake<br><small>", hesper_html_duration(a, (double)x->time_at_stake_ns));
			/* Each number as a reader wants it, its key and exact value kept for tools. */
			for (size_t k = 0; k < x->number_count; k++) {
				fprintf(out, "%s<span class=\"num\" data-key=\"", k ? " &middot; " : "");
				hesper_html_text(out, x->numbers[k].key);
				fprintf(out, "\" data-v=\"%.17g\">",
					isfinite(x->numbers[k].value) ? x->numbers[k].value : 0.0);
				hesper_html_text(out, hesper_format_finding_number(num, sizeof(num), x->numbers[k].key,
										   x->numbers[k].value));
				fputs("</span>", out);
			}
			fputs("</small><br>", out);
			for (uint32_t g = 0; x->queue && g < x->queue->gap_count; g++) {
				snprintf(num, sizeof(num), "gap %" PRIu32 ": %s, ", g + 1,
					 hesper_html_duration(b, (double)x->queue->gaps[g].length_ns));
				hesper_html_text(out, num);
				hesper_html_text(out, hesper_gap_activity(&x->queue->gaps[g]));
				fputs("<br>", out);
			}
			hesper_html_text(out, x->advice);
			fputs("</li>\n", out);
		}
		fputs("</ol></section>\n", out);
	}
	hesper_findings_free(&f);
	if (p->host_wait_count) {
		/* The text report's columns; numbers carry data-v so the page sorts them as numbers. */
		fputs("<section id=\"host-waits\"><h2>Host waits</h2>\n<table id=\"waits\" class=\"sortable\"><thead><tr>"
		      "<th data-type=\"num\">thread</th><th data-type=\"text\">call</th><th data-type=\"num\">count</th>"
		      "<th data-type=\"num\">total</th><th data-type=\"num\">mean</th><th data-type=\"num\">max</th>"
		      "</tr></thead><tbody>\n",
		      out);
		for (size_t i = 0; i < p->host_wait_count; i++) {
			const struct hesper_host_wait *w = &p->host_waits[i];
			double mean = w->count ? (double)w->total_ns / (double)w->count : 0;

			fprintf(out,
				"<tr><td data-v=\"%" PRIu32 "\">%" PRIu32 "</td><td>%s</td><td data-v=\"%" PRIu64
				"\">%" PRIu64 "</td><td data-v=\"%" PRIu64
				"\">%s</td><td data-v=\"%.17g\">%s</td><td data-v=\"%" PRIu64 "\">%s</td></tr>\n",
				w->thread, w->thread, hesper_wait_call_name(w->call), w->count, w->count, w->total_ns,
				hesper_html_duration(a, (double)w->total_ns), mean, hesper_html_duration(c, mean),
				w->max_ns, hesper_html_duration(b, (double)w->max_ns));
		}
		fputs("</tbody></table></section>\n", out);
	}
	return 0;
}
