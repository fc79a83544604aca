/*
 * hesper: the command-line tool. `hesper [options] -- program args...` runs a program
 * under Hesper; `hesper report|diff|merge ...` read Hesper's own output files; `hesper
 * help` prints the usage (a program called "help" runs as `hesper -- help`).
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "write/write.h"
#include "read/read.h"
#include "usage.h"

int
hesper_cmd_report(int argc, char **argv)
{
	struct hesper_profile p;
	char err[512];
	int ret;

	if (argc != 2 || argv[1][0] == '-')
		return hesper_usage_error("report takes one argument: a JSON summary (hesper report FILE.json)");
	if (hesper_summary_load(argv[1], &p, err, sizeof(err)) != 0) {
		fprintf(stderr, "hesper: %s\n", err);
		hesper_profile_free(&p);
		return HESPER_EXIT_USAGE;
	}
	ret = hesper_report_text(stdout, &p) == 0 ? 0 : 1;
	hesper_profile_free(&p);
	return ret;
}

int
main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "report") == 0)
		return hesper_cmd_report(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "diff") == 0)
		return hesper_cmd_diff(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "merge") == 0)
		return hesper_cmd_merge(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "help") == 0) {
		hesper_usage_print(stdout);
		return 0;
	}
	return hesper_cmd_run(argc, argv);
}
