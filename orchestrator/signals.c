/*
 * signals.c: the runner's signals and its clock.  SIGINT and SIGTERM are
 * blocked in every thread and taken synchronously by the main thread,
 * whose every wait is a sigtimedwait: the first signal stops the run
 * gracefully, the second skips the grace period.
 *
 * Not here: what a stop does (finish.c, runner.c).
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>

#include "runner-internal.h"

/* Signals seen so far: the first stops gracefully, the second skips the
 * grace period. */
int	runner_sig_count;
int	runner_sig_first;

void
runner_block_signals(void)
{
	sigset_t	set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* Sleep up to MS, returning early on SIGINT/SIGTERM (counted). */
void
runner_tick(int ms)
{
	sigset_t	set;
	struct timespec	ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	int		sig;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sig = sigtimedwait(&set, NULL, &ts);
	if (sig == SIGINT || sig == SIGTERM) {
		if (runner_sig_count++ == 0)
			runner_sig_first = sig;
		if (runner_progress_tty)
			fputc('\n', stderr);
		if (runner_sig_count == 1)
			fprintf(stderr, "devnet: %s: stopping the devnet "
			    "(again to skip the grace period)\n",
			    sig == SIGINT ? "interrupt" : "terminated");
	}
}
