/*
 * Throughput and memory of the analysis library.
 *
 * Feeds 10 million timed events over 1,000 kernel names through the kernel table (a
 * name lookup and a record per event, as the collector does), then writes the text,
 * JSON and CSV reports. Prints events per second and the peak resident set size at 1M
 * and at 10M events: statistics are streaming, so memory must not grow with events.
 *
 * Usage: analysis_bench [DIR]   (reports go to DIR/bench.{txt,json,csv}, else /dev/null)
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "write/write.h"

#define EVENTS 10000000u
#define NAMES 1000u
#define FACTORS 4096u /* log-normal multipliers, indexed by random bits */

static uint64_t rng_state = 0x853c49e6748fea9bull;

/* xorshift64*: deterministic, so every run does the same work. */
static uint64_t rng_next(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long peak_rss_kib(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1;
}

static FILE *open_out(const char *dir, const char *name)
{
	char path[4200];

	if (!dir)
		return fopen("/dev/null", "w");
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return fopen(path, "w");
}

/* Writes one report and returns the seconds it took, or -1 on failure. */
static double time_report(int (*write)(FILE *, const struct hesper_profile *), const struct hesper_profile *p,
			  const char *dir, const char *name)
{
	FILE *f = open_out(dir, name);
	double t0 = now_s();
	int ret;

	if (!f)
		return -1;
	ret = write(f, p);
	if (fclose(f) != 0)
		ret = -1;
	return ret == 0 ? now_s() - t0 : -1;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : NULL;
	static char names[NAMES][48];
	static uint64_t base_ns[NAMES];
	static double factor[FACTORS];
	struct hesper_profile p;
	long rss_1m = 0, rss_start;
	double t_1m = 0;
	int ret = EXIT_FAILURE;

	if (hesper_profile_init(&p) != 0)
		return EXIT_FAILURE;
	p.pid = 1;
	strcpy(p.exe, "analysis_bench");
	strcpy(p.host, "bench");

	/* Kernel k's median is spread over 1 µs .. 10 ms; each event is that times exp(0.5 z). */
	for (unsigned k = 0; k < NAMES; k++) {
		snprintf(names[k], sizeof(names[k]), "shader_%u.comp:main#%08x", k, (unsigned)(rng_next() >> 32));
		base_ns[k] = (uint64_t)(1000.0 * pow(10.0, 4.0 * (double)k / NAMES));
	}
	for (unsigned i = 0; i < FACTORS; i++) {
		/* Sum of 12 uniforms less 6: close enough to a standard normal for a benchmark. */
		double z = -6;
		for (int j = 0; j < 12; j++)
			z += (double)(rng_next() >> 11) / 9007199254740992.0;
		factor[i] = exp(0.5 * z);
	}

	rss_start = peak_rss_kib();
	double t0 = now_s();
	for (uint32_t i = 0; i < EVENTS; i++) {
		uint64_t r = rng_next();
		unsigned k = (unsigned)((r >> 32) % NAMES);
		struct hesper_kernel *row = hesper_kernel_table_get(p.kernels, names[k]);

		if (!row)
			goto out;
		hesper_kernel_record(row, (uint64_t)((double)base_ns[k] * factor[r & (FACTORS - 1)]));
		if (i + 1 == 1000000) {
			t_1m = now_s() - t0;
			rss_1m = peak_rss_kib();
		}
	}
	double t_all = now_s() - t0;
	long rss_10m = peak_rss_kib();

	double t_text = time_report(hesper_report_text, &p, dir, "bench.txt");
	double t_json = time_report(hesper_report_json, &p, dir, "bench.json");
	double t_csv = time_report(hesper_report_csv, &p, dir, "bench.csv");
	if (t_text < 0 || t_json < 0 || t_csv < 0) {
		fprintf(stderr, "analysis_bench: writing a report failed\n");
		goto out;
	}

	struct hesper_profile_summary s = hesper_profile_summary(&p);
	printf("events             %" PRIu64 " over %zu kernels\n", s.events, hesper_kernel_table_size(p.kernels));
	printf("record             %.3f s, %.1f M events/s (first 1M: %.1f M events/s)\n", t_all, EVENTS / t_all / 1e6,
	       1e6 / t_1m / 1e6);
	printf("peak RSS           before %ld KiB, at 1M events %ld KiB, at 10M events %ld KiB\n", rss_start, rss_1m,
	       rss_10m);
	printf("reports            text %.2f ms, json %.2f ms, csv %.2f ms\n", t_text * 1e3, t_json * 1e3, t_csv * 1e3);
	ret = EXIT_SUCCESS;
out:
	hesper_profile_free(&p);
	return ret;
}
