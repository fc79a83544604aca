/* The public report writers: a program's events through Hesper's own writers. */
#include <hesper/profiling.h>

#include "profile/profile.h"
#include "report.h"

typedef int (*writer)(FILE *, const struct hesper_profile *);

static writer
writer_of(enum hesper_report_format format)
{
	switch (format) {
	case HESPER_REPORT_TEXT: return hesper_report_text;
	case HESPER_REPORT_JSON: return hesper_report_json;
	case HESPER_REPORT_CSV: return hesper_report_csv;
	case HESPER_REPORT_TRACE: return hesper_report_trace;
	case HESPER_REPORT_HTML: return hesper_report_html;
	}
	return NULL;
}

int
hesper_write_report(FILE *out, enum hesper_report_format format, const struct hesper_event *events, size_t n,
		    const struct hesper_report_info *info)
{
	struct hesper_profile p;
	writer w = writer_of(format);
	int ret;

	if (!out || !w || (!events && n > 0))
		return HESPER_ERROR_ARGUMENT;
	if (hesper_profile_from_events(&p, events, n, info) != 0)
		return HESPER_ERROR_NO_MEMORY;
	/* The writers fail for a write error, or when memory runs out (rarely; told apart by the stream). */
	locale_t was = hesper_c_numbers_begin(); /* a decimal point whatever the caller's locale */
	ret = w(out, &p) == 0 ? HESPER_OK : ferror(out) ? HESPER_ERROR_IO : HESPER_ERROR_NO_MEMORY;
	hesper_c_numbers_end(was);
	hesper_profile_free(&p);
	return ret;
}

int
hesper_print_report(FILE *out, const struct hesper_event *events, size_t n)
{
	return hesper_write_report(out, HESPER_REPORT_TEXT, events, n, NULL);
}
