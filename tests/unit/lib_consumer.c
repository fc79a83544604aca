/*
 * A program using the installed profiling library the way a user would: built by
 * lib_install.sh with nothing but `pkg-config --cflags --libs hesper` (and statically).
 * Exercises every function once; with an argument, writes ARG.json and ARG.trace.json and
 * reads them back. Exit status 0 when every result is right, 1 otherwise.
 */
#include <hesper/profiling.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond)                                                                              \
	do {                                                                                     \
		if (!(cond)) {                                                                   \
			fprintf(stderr, "lib_consumer: %s:%d: %s\n", __FILE__, __LINE__, #cond); \
			failures++;                                                              \
		}                                                                                \
	} while (0)

static int
write_and_read(const char *prefix, const struct hesper_event *ev, size_t n)
{
	char path[4096], err[512];
	struct hesper_event *back = NULL;
	struct hesper_kernel_group *groups = NULL;
	size_t n_back = 0, n_groups = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s.json", prefix);
	f = fopen(path, "w");
	CHECK(f && hesper_write_report(f, HESPER_REPORT_JSON, ev, n, NULL) == HESPER_OK);
	CHECK(f && fclose(f) == 0);
	CHECK(hesper_read_summary(path, &groups, &n_groups, err, sizeof(err)) == HESPER_OK);
	CHECK(n_groups == 2 && strcmp(groups[1].name, "matmul") == 0 && groups[1].summary.total_events == 2);
	hesper_kernel_groups_free(groups, n_groups);
	CHECK(hesper_read_trace(path, &back, &n_back, err, sizeof(err)) == HESPER_ERROR_FORMAT);
	CHECK(strstr(err, "not a Hesper trace") != NULL);

	snprintf(path, sizeof(path), "%s.trace.json", prefix);
	f = fopen(path, "w");
	CHECK(f && hesper_write_report(f, HESPER_REPORT_TRACE, ev, n, NULL) == HESPER_OK);
	CHECK(f && fclose(f) == 0);
	CHECK(hesper_read_trace(path, &back, &n_back, err, sizeof(err)) == HESPER_OK);
	CHECK(n_back == n && back[0].start_ns == 1000 && strcmp(back[0].name, "matmul") == 0);
	hesper_events_free(back);
	return 0;
}

int
main(int argc, char **argv)
{
	struct hesper_event ev[3];
	struct hesper_kernel_group *groups = NULL;
	struct hesper_summary s;
	char line[256];
	size_t n;

	ev[0] = hesper_event_from_timestamps("matmul", 1000, 3500);
	ev[1] = hesper_event_from_ticks("softmax", 0xffffff00u, 0x100u, 52.08f, 32);
	ev[2] = hesper_event_from_timestamps("matmul", 4000, 5000);
	CHECK(hesper_event_duration_ns(&ev[0]) == 2500);
	CHECK(hesper_event_duration_us(&ev[0]) == 2.5);
	CHECK(hesper_event_duration_ms(&ev[0]) > 0.00249 && hesper_event_duration_ms(&ev[0]) < 0.00251);
	CHECK(hesper_event_duration_ns(&ev[1]) == 26665);
	CHECK(hesper_event_compare(&ev[0], &ev[2]) < 0);
	CHECK(hesper_event_format(line, sizeof(line), &ev[0]) > 0 && strncmp(line, "matmul: 2.500", 13) == 0);

	s = hesper_summary_from_events(ev, 3);
	CHECK(s.total_events == 3 && s.total_duration_ns == 2500 + 26665 + 1000);
	CHECK(hesper_summary_format(line, sizeof(line), &s) > 0 && strncmp(line, "3 events: ", 10) == 0);
	n = hesper_group_by_kernel(ev, 3, &groups);
	CHECK(n == 2 && strcmp(groups[0].name, "softmax") == 0 && groups[1].n_events == 2);
	hesper_kernel_groups_free(groups, n);

	CHECK(hesper_print_report(stdout, ev, 3) == HESPER_OK);
	CHECK(strlen(hesper_version()) > 0 && strcmp(hesper_status_string(HESPER_OK), "success") == 0);
	if (argc > 1)
		write_and_read(argv[1], ev, 3);
	if (failures == 0)
		printf("lib_consumer: ok (library %s)\n", hesper_version());
	return failures ? 1 : 0;
}
