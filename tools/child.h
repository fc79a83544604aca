/*
 * The program `hesper [options] program` profiles, run as the tool's child: signals sent
 * to the tool reach it, and the tool ends as it ended (its exit status, or its signal).
 */
#ifndef HESPER_TOOL_CHILD_H
#define HESPER_TOOL_CHILD_H

/*
 * Runs @argv (argv[0] looked up in PATH) as a child with the tool's environment and
 * waits for it, forwarding every signal another process sends the tool. Returns its wait
 * status; -1 when it could not start, after one line on stderr, with *@exit_code set to
 * 127 (not found) or 126.
 */
int hesper_child_run(char *const argv[], int *exit_code);

/* Ends the tool as a child with wait status @status ended: the same exit status or signal. */
_Noreturn void hesper_child_exit_as(int status);

#endif
