/*
 * lib_table_check LAYER_REPORT LAYER_TRACE: checks that the kernel table the layer printed
 * for a run (its text report) is the table hesper_print_report prints for the dispatches
 * of that run's trace, read back with hesper_read_trace: one implementation of the
 * statistics and the table for both. Exit status 0 when they are the same, 1 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hesper/profiling.h>

/* The kernel table in @report: from the column titles to the first empty line. */
static char *
table_of(char *report)
{
	char *t = strstr(report, "\n\n Time (%)"), *end;

	if (!t)
		return NULL;
	t += 2;
	end = strstr(t, "\n\n");
	if (end)
		end[1] = '\0';
	return t;
}

static char *
read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t size = 0;
	FILE *mem = open_memstream(&buf, &size);
	int c;

	if (!f || !mem) {
		if (f)
			fclose(f);
		if (mem)
			fclose(mem);
		free(buf);
		return NULL;
	}
	while ((c = fgetc(f)) != EOF)
		fputc(c, mem);
	fclose(f);
	fclose(mem);
	return buf;
}

int
main(int argc, char **argv)
{
	struct hesper_event *events = NULL;
	size_t n = 0, size = 0;
	char err[512], *layer = NULL, *lib = NULL, *a, *b;
	FILE *mem;
	int ret = 1;

	if (argc != 3) {
		fprintf(stderr, "usage: lib_table_check LAYER_REPORT LAYER_TRACE\n");
		return 2;
	}
	layer = read_file(argv[1]);
	if (!layer) {
		fprintf(stderr, "lib_table_check: cannot read %s\n", argv[1]);
		goto out;
	}
	if (hesper_read_trace(argv[2], &events, &n, err, sizeof(err)) != HESPER_OK) {
		fprintf(stderr, "lib_table_check: %s\n", err);
		goto out;
	}
	mem = open_memstream(&lib, &size);
	if (!mem || hesper_print_report(mem, events, n) != HESPER_OK) {
		fprintf(stderr, "lib_table_check: hesper_print_report failed\n");
		if (mem)
			fclose(mem);
		goto out;
	}
	fclose(mem);
	a = table_of(layer);
	b = table_of(lib);
	if (!a || !b || strcmp(a, b) != 0) {
		fprintf(stderr,
			"lib_table_check: the tables differ\n--- the layer's report ---\n%s\n"
			"--- hesper_print_report of its trace (%zu dispatches) ---\n%s\n",
			layer, n, lib);
		goto out;
	}
	printf("lib_table_check: the same table from the layer and from %zu events of its trace:\n%s", n, a);
	ret = 0;
out:
	hesper_events_free(events);
	free(layer);
	free(lib);
	return ret;
}
