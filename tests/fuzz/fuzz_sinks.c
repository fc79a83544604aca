/*
 * libFuzzer target: hesper_sinks_parse on arbitrary HESPER_REPORT values and host
 * names. It only parses (nothing is written); every result is checked for the promises
 * sinks.h makes, and freed (a result of -1, memory running out, is not touched).
 * Error lines go to /dev/null.
 *
 * Built and run by scripts/fuzz; by hand, from the repository root:
 *   clang -std=c11 -g -O1 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
 *     -Ianalysis tests/fuzz/fuzz_sinks.c analysis/?*.c -lm -o fuzz_sinks
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sinks/sinks.h"

#define CHECK(cond)              \
	do {                     \
		if (!(cond))     \
			abort(); \
	} while (0)

static FILE *sink;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hesper_sink_list list;
	char *spec, *host, *nl;
	int pid = 0, rc;

	if (!sink)
		sink = fopen("/dev/null", "w");
	/* The first 4 bytes, when there are more, choose the pid (negative ones too). */
	if (size > 4) {
		memcpy(&pid, data, sizeof pid);
		data += 4;
		size -= 4;
	}
	spec = malloc(size + 1);
	if (!spec)
		return 0;
	memcpy(spec, data, size);
	spec[size] = '\0';

	/* A second line, when there is one, is the host name. */
	host = "fuzzhost";
	nl = strchr(spec, '\n');
	if (nl) {
		*nl = '\0';
		host = nl + 1;
	}

	memset(&list, 0, sizeof list);
	rc = hesper_sinks_parse(spec, pid, host, &list, sink);
	CHECK(rc >= -1);
	if (rc >= 0) {
		CHECK(list.count == 0 || list.items != NULL);
		for (size_t i = 0; i < list.count; i++) {
			const struct hesper_sink *s = &list.items[i];

			CHECK(s->kind >= HESPER_SINK_STDOUT && s->kind <= HESPER_SINK_PROM);
			if (s->kind == HESPER_SINK_STDOUT || s->kind == HESPER_SINK_STDERR)
				CHECK(s->path == NULL);
			else
				CHECK(s->path != NULL && strlen(s->path) < (size_t)1 << 30);
		}
	}
	if (rc >= 0)
		hesper_sinks_free(&list);
	/* A NULL spec means the default. */
	if (size == 0) {
		memset(&list, 0, sizeof list);
		if (hesper_sinks_parse(NULL, 1, "h", &list, sink) >= 0)
			hesper_sinks_free(&list);
	}
	free(spec);
	return 0;
}
