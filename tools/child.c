/*
 * Running the profiled program as a child. The tool stays its parent so that, once the
 * program has exited, it can tell where the reports went; everything else behaves as if
 * the tool were the program:
 *
 * - a signal another process sends the tool (kill, a CI runner's timeout) is sent on to
 *   the child; one the terminal sends (Ctrl-C, a hangup, a window change) reaches the
 *   child from the terminal itself, as it reaches the whole foreground process group, so
 *   it is not sent again;
 * - a signal the tool was started with ignored (nohup) stays ignored in the child;
 * - the tool exits with the child's status, or dies of the signal that killed the child.
 */
#include "child.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t child_pid;

/* Signals that are the tool's own business or cannot be caught: never forwarded. */
static bool
kept(int sig)
{
	static const int own[] = {SIGKILL, SIGSTOP, SIGCHLD, SIGTSTP, SIGTTIN,
				  SIGTTOU, SIGCONT, SIGPIPE, SIGTRAP, SIGSYS};

	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (own[i] == sig)
			return true;
	return false;
}

static void
forward(int sig, siginfo_t *info, void *context)
{
	(void)context;
	/* SI_KERNEL: from the terminal (or the kernel), which signals the child as well. */
	if (child_pid > 0 && info->si_code != SI_KERNEL && info->si_pid != child_pid)
		kill((pid_t)child_pid, sig);
}

/* Signals a fault of the tool's own raises, which another process may also send with kill. */
static bool
fault_like(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL || sig == SIGABRT;
}

/*
 * A fault-like signal: sent by another process (kill -SEGV), the program's to have like any
 * other; the tool's own fault or abort(), its default action, as if no handler were there
 * (a fault recurs when the handler returns; abort()'s signal is raised again).
 */
static void
forward_or_die(int sig, siginfo_t *info, void *context)
{
	if (info->si_code <= 0 && info->si_pid != getpid()) {
		forward(sig, info, context);
		return;
	}
	signal(sig, SIG_DFL);
	if (info->si_code <= 0)
		raise(sig);
}

/* Installs forward() for every signal it may take; @installed marks those it took. */
static void
install(sigset_t *installed)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = forward;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&sa.sa_mask);
	sigemptyset(installed);
	for (int sig = 1; sig < NSIG; sig++) {
		if (kept(sig) || sigaction(sig, NULL, &old) != 0 || old.sa_handler == SIG_IGN)
			continue;
		sa.sa_sigaction = fault_like(sig) ? forward_or_die : forward;
		if (sigaction(sig, &sa, NULL) == 0)
			sigaddset(installed, sig);
	}
}

/* In the child before exec: the default action back for every signal forward() had. */
static void
uninstall(const sigset_t *installed)
{
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(installed, sig) == 1)
			signal(sig, SIG_DFL);
}

/* In the child: execs @argv; on failure writes errno into @fd and exits. */
static _Noreturn void
exec_child(char *const argv[], const sigset_t *installed, const sigset_t *mask, int fd)
{
	int err;

	uninstall(installed);
	sigprocmask(SIG_SETMASK, mask, NULL);
	execvp(argv[0], argv);
	err = errno;
	if (write(fd, &err, sizeof(err)) != (ssize_t)sizeof(err))
		_exit(127);
	_exit(err == ENOENT ? 127 : 126);
}

int
hesper_child_run(char *const argv[], int *exit_code)
{
	sigset_t all, mask, installed;
	int pipefd[2], err = 0, status = 0;
	ssize_t n;
	pid_t pid;

	*exit_code = 126;
	/* The write end closes at exec: reading nothing from it means the program started. */
	if (pipe2(pipefd, O_CLOEXEC) != 0) {
		fprintf(stderr, "hesper: cannot run '%s': %s\n", argv[0], strerror(errno));
		return -1;
	}
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &mask);
	install(&installed);
	pid = fork();
	if (pid == 0) {
		close(pipefd[0]);
		exec_child(argv, &installed, &mask, pipefd[1]);
	}
	err = errno;
	if (pid > 0)
		child_pid = pid;
	sigprocmask(SIG_SETMASK, &mask, NULL);
	close(pipefd[1]);
	if (pid < 0) {
		close(pipefd[0]);
		fprintf(stderr, "hesper: cannot run '%s': %s\n", argv[0], strerror(err));
		return -1;
	}
	do
		n = read(pipefd[0], &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (n == (ssize_t)sizeof(err)) {
		fprintf(stderr, "hesper: cannot run '%s': %s\n", argv[0], strerror(err));
		*exit_code = err == ENOENT ? 127 : 126;
		return -1;
	}
	return status;
}

_Noreturn void
hesper_child_exit_as(int status)
{
	fflush(stdout);
	fflush(stderr);
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		struct rlimit no_core = {0, 0};
		sigset_t one;

		/* The child dumped its own core, if any; the tool's would only mislead. */
		setrlimit(RLIMIT_CORE, &no_core);
		signal(sig, SIG_DFL);
		sigemptyset(&one);
		sigaddset(&one, sig);
		sigprocmask(SIG_UNBLOCK, &one, NULL);
		raise(sig);
		_exit(128 + sig);
	}
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}
