/* The `hesper` tool's usage, and bad usage: the message, the hint at --help, the exit status. */
#include "usage.h"

#include <stdarg.h>
#include <stdio.h>

#include "commands.h"

static const char usage[] =
	"Usage: hesper [options] [--] program [args...]\n"
	"       hesper report FILE.json\n"
	"       hesper diff [--threshold PCT] [--sigmas K] [--allow-mismatch] A.json B.json\n"
	"       hesper diff [options] --runs N A1.json ... AN.json B1.json ... BN.json\n"
	"       hesper merge FILE.json... [FILE.trace.json...] -o OUT\n"
	"       hesper merge -o OUT.db FILE.db...\n"
	"       hesper help\n"
	"\n"
	"Runs a Vulkan compute program under Hesper; when it exits, Hesper writes how long\n"
	"each compute kernel ran on the GPU, and hesper says on stderr where the reports went.\n"
	"The program's exit status (or signal) is hesper's; signals sent to hesper reach it.\n"
	"\n"
	"Options:\n"
	"  -o, --output PREFIX  output files PREFIX.json, PREFIX.csv, PREFIX.memops.csv, PREFIX.trace.json,\n"
	"                       PREFIX.html, PREFIX.db, PREFIX.prom (default " HESPER_DEFAULT_PREFIX
	"; %p becomes the pid,\n"
	"                       %h the host name; one of these extensions at the end is dropped). Without\n"
	"                       %p, each process writes PREFIX-PID.*, renamed PREFIX.* when only one did\n"
	"  -f, --format LIST    comma-separated: text or stderr (table on stderr), stdout (table on stdout),\n"
	"                       json, csv, memcsv (memory operations as CSV), trace (Chrome/Perfetto\n"
	"                       timeline), html, sqlite (every dispatch in an SQLite database), prom\n"
	"                       (Prometheus metrics) (default " HESPER_DEFAULT_FORMATS ")\n"
	"  -m, --mode MODE      dispatch: time every dispatch (default); submit: time command buffers only\n"
	"                       clock: time every dispatch from the shader clock, without serializing\n"
	"  -s, --sample N       time every N-th dispatch of each kernel (all are counted)\n"
	"  -g, --group-by WHAT  kernel: a row per kernel (default); shape: per kernel and work-group\n"
	"                       count, \"kernel [X\u00d7Y\u00d7Z]\"; label: per kernel and innermost debug label\n"
	"      --max-events N   timeline events kept for the trace and html reports\n"
	"                       (-m, -s, -g and --max-events take what HESPER_MODE, HESPER_SAMPLE,\n"
	"                       HESPER_GROUP_BY and HESPER_MAX_EVENTS take)\n"
	"      --lib PATH       the libhesper.so to preload (default: $HESPER_LIB, or the one installed\n"
	"                       or built with this tool)\n"
	"  -h, --help           this help (also: hesper help)\n"
	"  -V, --version        Hesper's version\n"
	"\n"
	"report prints the text report of the run that saved a JSON summary.\n"
	"\n"
	"diff compares each kernel's median dispatch time between two sides, A (before) and B\n"
	"(after), each one run or N runs of the program (--runs N: the first N files are A, the\n"
	"next N are B); a side's time is its fastest run's median. It exits 1 when a kernel is\n"
	"more than PCT percent slower (default 10) and the change is more than K times the\n"
	"noise (default 2): the spread of the kernel's own dispatches, and with --runs the gap\n"
	"between a side's best runs. It exits 2 when the sides are different programs, devices\n"
	"or modes (--allow-mismatch compares them anyway) or a file holds impossible numbers.\n"
	"\n"
	"merge combines the summaries of many processes (text on stdout, OUT.json) and their\n"
	"traces (OUT.trace.json), each file once whatever its name; given SQLite databases, it\n"
	"writes one database OUT.db.\n";

void
hesper_usage_print(FILE *out)
{
	fputs(usage, out);
}

int
hesper_usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("hesper: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (hesper --help for usage)\n", stderr);
	return HESPER_EXIT_USAGE;
}
