/*
 * The exit report when a signal ends the process (signals.c): requests to end (SIGINT,
 * SIGTERM, SIGHUP, SIGQUIT) and faults (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT). After
 * the report the signal ends the process as it would have without Hesper.
 */
#ifndef HESPER_SIGNALS_H
#define HESPER_SIGNALS_H

/*
 * Starts Hesper's signal thread and installs the handlers: for a request, where the
 * program left it at its default action (and HESPER_REPORT_SIGNAL does not take it); for
 * a fault, where it is at its default action or has a handler of the program's, which
 * Hesper's then runs first. @finish writes the exit report for signal @sig. Called once,
 * with the first device.
 */
void hesper_signals_watch(void (*finish)(int sig));

#endif
