/*
 * progress.c: the runner's status line on stderr while trials run
 * (elapsed time, load, heights, samples, problems).
 *
 * Not here: the per-run summaries printed at the end (finish.c).
 */
#include <stdint.h>
#include <stdio.h>

#include "loadgen.h"
#include "runner-internal.h"
#include "clock.h"

int	runner_progress_tty;

static void
fmt_hms(char *buf, size_t len, double s)
{
	long	v = (long)(s < 0 ? 0 : s);

	if (v >= 3600)
		snprintf(buf, len, "%ld:%02ld:%02ld", v / 3600, v / 60 % 60,
		    v % 60);
	else
		snprintf(buf, len, "%02ld:%02ld", v / 60, v % 60);
}

/* One status line: on a terminal rewritten in place, else every 10 s. */
void
runner_progress(struct trial **ts, int nt, const struct runner_opts *o,
    int force)
{
	static uint64_t	last_ns;
	uint64_t	now = dn_now_ns();
	char		el[32], tot[32], line[512];
	size_t		off = 0;
	int		i, k;

	if (o->quiet)
		return;
	if (!force && now - last_ns < (runner_progress_tty ? 250000000ull :
	    10000000000ull))
		return;
	last_ns = now;
	for (i = 0; i < nt; i++) {
		struct trial		*t = ts[i];
		struct loadgen_stats	 st = { 0 };
		double			 hmin = -1, hmax = -1, lag = 0;
		int64_t			 problems, samples;

		if (t->lg != NULL)
			loadgen_stats(t->lg, &st);
		pthread_mutex_lock(&t->mu);
		for (k = 0; k < t->nnodes; k++) {
			struct trial_node *n = &t->nodes[k];

			if (n->proc.exited || n->hello == 0)
				continue;
			if (hmin < 0 || n->last[DN_M_HEIGHT] < hmin)
				hmin = n->last[DN_M_HEIGHT];
			if (n->last[DN_M_HEIGHT] > hmax)
				hmax = n->last[DN_M_HEIGHT];
			if (n->last[DN_M_LAG_BLOCKS] > lag)
				lag = n->last[DN_M_LAG_BLOCKS];
		}
		problems = t->rejected + t->unplanned;
		for (k = 0; k < t->nnodes; k++)
			problems += t->nodes[k].lost;
		samples = t->samples_stored;
		pthread_mutex_unlock(&t->mu);
		fmt_hms(el, sizeof(el), (double)trial_t_ms(t, now) / 1000.0);
		fmt_hms(tot, sizeof(tot), (double)t->scn->duration_ms / 1000.0);
		off += (size_t)snprintf(line + off, sizeof(line) - off,
		    "%strial %d/%zu %s  %s/%s", i ? " | " : "",
		    t->pt.index + 1, t->ntrials, t->var->name, el, tot);
		if (t->lg != NULL)
			off += (size_t)snprintf(line + off, sizeof(line) - off,
			    "  tps %.0f/%.1f", st.target_tps, st.elapsed_s > 0 ?
			    (double)(st.submitted - st.send_errors) /
			    st.elapsed_s : 0.0);
		off += (size_t)snprintf(line + off, sizeof(line) - off,
		    "  height %.0f..%.0f  lag %.0f  samples %lld",
		    hmin < 0 ? 0 : hmin, hmax < 0 ? 0 : hmax, lag,
		    (long long)samples);
		if (off < sizeof(line) && problems > 0)
			off += (size_t)snprintf(line + off, sizeof(line) - off,
			    "  problems %lld", (long long)problems);
		if (off >= sizeof(line))
			off = sizeof(line) - 1;
	}
	if (runner_progress_tty)
		fprintf(stderr, "\r\033[K%s", line);
	else
		fprintf(stderr, "%s\n", line);
}
