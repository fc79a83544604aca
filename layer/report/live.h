/*
 * Reports while the program runs: every HESPER_INTERVAL, when the HESPER_REPORT_SIGNAL
 * arrives, and when the HESPER_CONTROL file appears or changes. Written by the collector
 * thread (never a program's thread), to the file sinks only; the exit report still comes,
 * and none is written after it.
 */
#ifndef HESPER_LIVE_H
#define HESPER_LIVE_H

/*
 * Arms what the settings ask for: the interval's first deadline, the control file's
 * present state, and the report signal's handler when the program left that signal at
 * its default action (one line on stderr otherwise). Called once, with the first device.
 */
void hesper_live_start(void);

/* Writes a report when one is due; called by the collector thread between harvests. */
void hesper_live_poll(void);

#endif
