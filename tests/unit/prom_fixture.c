/*
 * Writes the Prometheus exposition of a profile whose kernel names hold the characters
 * the format escapes (backslash, double quote, newline) to stdout, for the end-to-end
 * check with a real parser (tests/e2e/run_sinks.py prom_escaping). Each kernel NAME
 * given as an argument ran once for ARGUMENT-INDEX microseconds.
 */
#include <stdio.h>
#include <string.h>

#include "write/write.h"

int
main(int argc, char **argv)
{
	struct hesper_profile p;
	int ret;

	if (hesper_profile_init(&p) != 0)
		return 1;
	p.pid = 42;
	snprintf(p.exe, sizeof(p.exe), "fixture \"exe\"");
	snprintf(p.host, sizeof(p.host), "h");
	for (int i = 1; i < argc; i++)
		hesper_kernel_record(hesper_kernel_table_get(p.kernels, argv[i]), (uint64_t)i * 1000);
	ret = hesper_report_prom(stdout, &p) == 0 ? 0 : 1;
	hesper_profile_free(&p);
	return ret;
}
