/*
 * The report stage, the face of report/: the sinks of HESPER_REPORT, the exit report,
 * and the reports while the program runs. Above the collector: it asks the collector to
 * finish and lends it the work done between harvests (hesper_collector_set_duties).
 */
#ifndef HESPER_LAYER_REPORT_H
#define HESPER_LAYER_REPORT_H

#include <stdbool.h>

/* Reads HESPER_REPORT (once; a bad one is reported now) and notes which timeline events the sinks want. */
void hesper_report_open(void);

/* Registers the exit report, the signal handlers and the live reports; once, with the first device. */
void hesper_report_register_exit(void);

/*
 * Writes the report to every sink, once per process. @sig: the signal ending the process
 * (0 at exit), which the report names; then the program's output still in stdout's buffer
 * is left there, to be lost with the process as without Hesper, and a stdout sink writes
 * past it.
 */
void hesper_report_write(int sig);

/* True once the exit report was written. */
bool hesper_report_written(void);

/*
 * Writes the report so far to the file sinks only (the program's stdout and stderr get the
 * exit report alone), marked partial with @reason ("interval", "signal", "control"). Does
 * nothing once the exit report was written. Called by the collector thread.
 */
void hesper_report_partial(const char *reason);

/* True when HESPER_REPORT names at least one file sink. */
bool hesper_report_has_file_sink(void);

/* Streams the timeline events queued so far (state/events.h) to the database sink. */
void hesper_report_stream_events(void);

#endif
