/*
 * Debugging aid for hangs.md: preloaded beside Hesper, writes each thread's backtrace()
 * to /tmp/stk-<tid>.txt when the thread gets SIGUSR2 (probe-stacks.sh sends it to every
 * thread of a hung run). Build: gcc -O1 -shared -fPIC -o build-sd/stackdump.so stackdump.c
 */
#define _GNU_SOURCE
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
static void on_sig(int sig)
{
	(void)sig;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/stk-%d.txt", (int)gettid());
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return;
	void *frames[64];
	int n = backtrace(frames, 64);
	backtrace_symbols_fd(frames, n, fd);
	close(fd);
}
__attribute__((constructor)) static void init(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sig;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR2, &sa, NULL);
}
