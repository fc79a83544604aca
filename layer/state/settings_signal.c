/* HESPER_REPORT_SIGNAL's values: the signals a user may pick, by name or number (settings_signal.h). */
#include "settings_signal.h"

#include <signal.h>

#include "analysis.h"

/* A string that is not NUL-terminated where it is used. */
struct span {
	const char *p;
	size_t len;
};

static bool equals_nocase(struct span v, const char *word)
{
	return hesper_text_is(v.p, v.len, word);
}

static bool parse_number(struct span v, uint64_t min, uint64_t max, uint64_t *out)
{
	return hesper_text_whole(v.p, v.len, min, max, out);
}

/*
 * Signals a user may pick for HESPER_REPORT_SIGNAL: those whose default action does not
 * matter to a long-running program's author or that exist for user requests. Signals the
 * kernel sends for faults (SEGV, BUS, FPE, ILL, TRAP, SYS), the ones that cannot be caught
 * (KILL, STOP), job control (TSTP, TTIN, TTOU, CONT, CHLD), and INT/TERM (Hesper's exit
 * report) are refused.
 */
static const struct {
	const char *name;
	int number;
} report_signals[] = {
	{"hup", SIGHUP},     {"quit", SIGQUIT}, {"usr1", SIGUSR1}, {"usr2", SIGUSR2},     {"alrm", SIGALRM},
	{"winch", SIGWINCH}, {"urg", SIGURG},   {"pwr", SIGPWR},   {"prof", SIGPROF},     {"vtalrm", SIGVTALRM},
	{"xcpu", SIGXCPU},   {"xfsz", SIGXFSZ}, {"io", SIGIO},     {"stkflt", SIGSTKFLT},
};

static bool signal_allowed(int sig)
{
	if (sig >= SIGRTMIN && sig <= SIGRTMAX)
		return true;
	for (size_t i = 0; i < sizeof report_signals / sizeof report_signals[0]; i++)
		if (report_signals[i].number == sig)
			return true;
	return false;
}

bool hesper_settings_signal(const char *text, size_t len, int *out)
{
	struct span v = {text, len};
	uint64_t n;

	if (parse_number(v, 1, (uint64_t)SIGRTMAX, &n)) {
		if (!signal_allowed((int)n))
			return false;
		*out = (int)n;
		return true;
	}
	if (v.len >= 3 && equals_nocase((struct span){v.p, 3}, "sig")) {
		v.p += 3;
		v.len -= 3;
	}
	for (size_t i = 0; i < sizeof report_signals / sizeof report_signals[0]; i++) {
		if (equals_nocase(v, report_signals[i].name)) {
			*out = report_signals[i].number;
			return true;
		}
	}
	if (v.len >= 5 &&
	    (equals_nocase((struct span){v.p, 5}, "rtmin") || equals_nocase((struct span){v.p, 5}, "rtmax"))) {
		bool from_max = equals_nocase((struct span){v.p, 5}, "rtmax");
		int sig = from_max ? SIGRTMAX : SIGRTMIN;

		if (v.len > 5) {
			if (v.p[5] != (from_max ? '-' : '+') ||
			    !parse_number((struct span){v.p + 6, v.len - 6}, 0, (uint64_t)(SIGRTMAX - SIGRTMIN), &n))
				return false;
			sig = from_max ? sig - (int)n : sig + (int)n;
		}
		*out = sig;
		return true;
	}
	return false;
}
