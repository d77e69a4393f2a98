/*
 * signals.c: the runner's signals and its clock.  SIGINT, SIGTERM, SIGHUP
 * (the terminal went away) and SIGQUIT are blocked in every thread and
 * taken synchronously by the main thread, whose every wait is a
 * sigtimedwait: the first signal stops the run gracefully, the second
 * skips the grace period.  Once the trials are over (the comparison of
 * `devnet ab`, closing the store) the same signals end devnet at once.
 * A SIGHUP ignored when devnet started (nohup) stays ignored.
 *
 * Not here: what a stop does (finish.c, runner.c).
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "run/runner-internal.h"
#include "sys/wake.h"

/* Signals seen so far: the first stops gracefully, the second skips the
 * grace period. */
int	signals_count;
int	signals_first;

/* Every signal that stops a run: the same everywhere below. */
static const int stop_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
#define NSTOP_SIGS	(sizeof(stop_sigs) / sizeof(stop_sigs[0]))

/* Started under nohup: a SIGHUP is not meant to stop anything. */
static int	hup_ignored;

static void
stop_set(sigset_t *set)
{
	size_t	i;

	sigemptyset(set);
	for (i = 0; i < NSTOP_SIGS; i++) {
		if (stop_sigs[i] != SIGHUP || !hup_ignored)
			sigaddset(set, stop_sigs[i]);
	}
}

const char *
signals_name(int sig)
{
	switch (sig) {
	case SIGINT:
		return ("SIGINT");
	case SIGTERM:
		return ("SIGTERM");
	case SIGHUP:
		return ("SIGHUP");
	case SIGQUIT:
		return ("SIGQUIT");
	}
	return ("a signal");
}

/* What the user is told the signal was. */
static const char *
sig_word(int sig)
{
	switch (sig) {
	case SIGINT:
		return ("interrupt");
	case SIGTERM:
		return ("terminated");
	case SIGHUP:
		return ("hangup");
	case SIGQUIT:
		return ("quit");
	}
	return ("signal");
}

void
signals_block(void)
{
	struct sigaction	old;
	sigset_t		set;

	/* A blocked signal is queued even when ignored: look first. */
	if (sigaction(SIGHUP, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
		hup_ignored = 1;
	stop_set(&set);
	wake_init(&set);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* Sleep up to MS, returning early on a stop signal (counted) or on news
 * from another thread (sys/wake.h). */
void
signals_tick(int ms)
{
	sigset_t	set;
	struct timespec	ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	int		sig;

	stop_set(&set);
	sigaddset(&set, WAKE_SIG);
	sig = sigtimedwait(&set, NULL, &ts);
	if (sig > 0 && sig != WAKE_SIG) {
		if (signals_count++ == 0)
			signals_first = sig;
		if (progress_tty)
			fputc('\n', stderr);
		if (signals_count == 1)
			fprintf(stderr, "devnet: %s: stopping the devnet "
			    "(again to skip the grace period)\n",
			    sig_word(sig));
	}
}

/* After the trials: say so and exit 128 + SIG, async-signal-safe. */
static void
on_stop_signal(int sig)
{
	static const char	msg[] = "devnet: stopped by a signal (the "
				    "runs so far are stored)\n";
	ssize_t			w;

	w = write(STDERR_FILENO, msg, sizeof(msg) - 1);
	(void)w;
	_exit(128 + sig);
}

void
signals_unblock(void)
{
	struct sigaction	sa;
	sigset_t		set;
	size_t			i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	stop_set(&sa.sa_mask);	/* one at a time */
	for (i = 0; i < NSTOP_SIGS; i++) {
		if (sigismember(&sa.sa_mask, stop_sigs[i]))
			sigaction(stop_sigs[i], &sa, NULL);
	}
	/* A signal that came while nothing waited for one (after the last
	 * trial's clock stopped) is pending: it is taken right here. */
	stop_set(&set);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}
