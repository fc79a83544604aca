/*
 * The kinds of sink and their names in HESPER_REPORT (sinks_parts.h): one table, so the
 * parser and the error lines of the writers can never disagree on a name.
 */
#include "sinks_parts.h"

#include <string.h>

#include "model/model.h"

struct kind_name {
	const char *name;
	enum hesper_sink_kind kind;
};

static const struct kind_name path_kinds[] = {
	{"text", HESPER_SINK_TEXT},   {"json", HESPER_SINK_JSON},         {"csv", HESPER_SINK_CSV},
	{"trace", HESPER_SINK_TRACE}, {"html", HESPER_SINK_HTML},         {"sqlite", HESPER_SINK_SQLITE},
	{"prom", HESPER_SINK_PROM},   {"memcsv", HESPER_SINK_MEMOPS_CSV},
};
#define PATH_KIND_COUNT (sizeof(path_kinds) / sizeof(path_kinds[0]))

const char *
hesper_sink_kind_name(enum hesper_sink_kind kind)
{
	switch (kind) {
	case HESPER_SINK_STDOUT: return "stdout";
	case HESPER_SINK_STDERR: return "stderr";
	default: break;
	}
	for (size_t i = 0; i < PATH_KIND_COUNT; i++)
		if (path_kinds[i].kind == kind)
			return path_kinds[i].name;
	return "?";
}

bool
hesper_sink_kind_named(const char *name, size_t len, enum hesper_sink_kind *kind)
{
	for (size_t i = 0; i < PATH_KIND_COUNT; i++) {
		if (hesper_text_is(name, len, path_kinds[i].name)) {
			*kind = path_kinds[i].kind;
			return true;
		}
	}
	return false;
}
