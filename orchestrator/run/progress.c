/*
 * progress.c: the runner's status line on stderr while trials run
 * (elapsed time, load, heights, samples, problems), for any number of
 * trials side by side (up to 64 variants in `order: concurrent`).  What
 * no node has reported (a foreign node without a mapped height) is
 * "n/a", never 0; a trial also shows its nodes' RSS where its node kind
 * says (show_usage: foreign nodes), the named metrics its scenario
 * declares, and how many nodes are paused; a trial
 * over before the others of its slot (node.exit: expected) says "done".
 *
 * Not here: the per-run summaries printed at the end (finish.c).
 */
#include <sys/ioctl.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trial/loadgen.h"
#include "run/runner-internal.h"
#include "clock.h"
#include "xalloc.h"

int	progress_tty;

/* What one trial shows. */
struct view {
	double		hmin, hmax, lag;
	double		target_tps, tps;
	int64_t		problems, samples;
	int		has_load;
	int		rate_known;	/* 0: a command that did not say */
	int		have_h, have_lag;	/* some node reported it */
	int		usage;		/* the kind's show_usage */
	double		rss;		/* usage: max over nodes; -1 none */
	int		paused;
	int		over;		/* finished before the slot */
	size_t		nncols;
	const char	*ncols[TRIAL_NCOLS];
	double		nmin[TRIAL_NCOLS], nmax[TRIAL_NCOLS];
	uint64_t	nhave;
};

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

static void
view_of(struct trial *t, struct view *v)
{
	struct loadgen_stats	 st = { 0 };
	int			 k;

	memset(v, 0, sizeof(*v));
	v->hmin = v->hmax = -1;
	v->rss = -1;
	v->usage = node_kind(t)->show_usage;
	v->over = t->col == NULL;	/* finish_trial ran */
	v->nncols = t->nncols;
	memcpy(v->ncols, t->ncols, sizeof(v->ncols));
	if (t->lg != NULL) {
		loadgen_stats(t->lg, &st);
		v->has_load = 1;
		v->rate_known = st.reported;
		v->target_tps = st.target_tps;
		v->tps = st.elapsed_s > 0 ? (double)(st.submitted -
		    st.send_errors) / st.elapsed_s : 0.0;
	}
	pthread_mutex_lock(&t->mu);
	for (k = 0; k < t->nnodes; k++) {
		struct trial_node *n = &t->nodes[k];

		size_t		   j;

		if (n->proc.exited || n->hello == 0)
			continue;
		v->paused += n->stopped;
		if (n->have_last >> DN_M_HEIGHT & 1) {
			if (!v->have_h || n->last[DN_M_HEIGHT] < v->hmin)
				v->hmin = n->last[DN_M_HEIGHT];
			if (!v->have_h || n->last[DN_M_HEIGHT] > v->hmax)
				v->hmax = n->last[DN_M_HEIGHT];
			v->have_h = 1;
		}
		if ((n->have_last >> DN_M_LAG_BLOCKS & 1) &&
		    (!v->have_lag || n->last[DN_M_LAG_BLOCKS] > v->lag)) {
			v->lag = n->last[DN_M_LAG_BLOCKS];
			v->have_lag = 1;
		}
		if ((n->have_last >> DN_M_RSS_BYTES & 1) &&
		    n->last[DN_M_RSS_BYTES] > v->rss)
			v->rss = n->last[DN_M_RSS_BYTES];
		for (j = 0; j < v->nncols && n->nlast != NULL; j++) {
			double	x = n->nlast[j];

			if (!(n->nhave >> j & 1))
				continue;
			if (!(v->nhave >> j & 1) || x < v->nmin[j])
				v->nmin[j] = x;
			if (!(v->nhave >> j & 1) || x > v->nmax[j])
				v->nmax[j] = x;
			v->nhave |= (uint64_t)1 << j;
		}
	}
	v->problems = t->rejected + t->unplanned;
	for (k = 0; k < t->nnodes; k++)
		v->problems += t->nodes[k].lost;
	v->samples = t->samples_stored;
	pthread_mutex_unlock(&t->mu);
}

static void
put_view(FILE *f, const struct view *v)
{
	size_t	j;

	if (v->over) {
		fprintf(f, "  done  samples %lld", (long long)v->samples);
		return;
	}
	/* a command load's rate is what its DN-LOAD lines say, if any */
	if (v->has_load && !v->rate_known)
		fprintf(f, "  tps rate not reported");
	else if (v->has_load && v->target_tps > 0)
		fprintf(f, "  tps %.0f/%.1f", v->target_tps, v->tps);
	else if (v->has_load)
		fprintf(f, "  tps %.1f", v->tps);
	if (v->have_h)
		fprintf(f, "  height %.0f..%.0f", v->hmin, v->hmax);
	else
		fprintf(f, "  height n/a");
	if (v->have_lag)
		fprintf(f, "  lag %.0f", v->lag);
	else
		fprintf(f, "  lag n/a");
	if (v->usage && v->rss >= 0)
		fprintf(f, "  rss %.1f M", v->rss / 1048576.0);
	else if (v->usage)
		fprintf(f, "  rss n/a");
	for (j = 0; j < v->nncols; j++) {
		if (!(v->nhave >> j & 1))
			fprintf(f, "  %s n/a", v->ncols[j]);
		else if (v->nmin[j] == v->nmax[j])
			fprintf(f, "  %s %.6g", v->ncols[j], v->nmin[j]);
		else
			fprintf(f, "  %s %.6g..%.6g", v->ncols[j], v->nmin[j],
			    v->nmax[j]);
	}
	fprintf(f, "  samples %lld", (long long)v->samples);
	if (v->paused > 0)
		fprintf(f, "  paused %d", v->paused);
	if (v->problems > 0)
		fprintf(f, "  problems %lld", (long long)v->problems);
}

/* Columns of the terminal on stderr; 0 when unknown. */
static size_t
term_cols(void)
{
	struct winsize	ws;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return (ws.ws_col);
	return (0);
}

/*
 * One status line: on a terminal rewritten in place, else every 10 s.
 * Every trial has its part of the line; on a terminal too narrow for them
 * all, the trials are summed up in one part instead (and the line cut at
 * the edge), since a line that wraps cannot be rewritten in place.
 */
void
progress_line(struct trial **ts, int nt, const struct runner_opts *o,
    int force)
{
	static uint64_t	 last_ns;
	uint64_t	 now = dn_now_ns();
	struct view	*vs = NULL, sum;
	char		 el[32], tot[32], *line = NULL, *all = NULL;
	size_t		 len = 0, alllen = 0, cols;
	FILE		*f;
	int		 i;

	if (o->quiet || nt <= 0)
		return;
	if (!force && now - last_ns < (progress_tty ? 250000000ull :
	    10000000000ull))
		return;
	last_ns = now;
	vs = dn_xcalloc((size_t)nt, sizeof(*vs));
	for (i = 0; i < nt; i++)
		view_of(ts[i], &vs[i]);
	fmt_hms(el, sizeof(el), (double)trial_t_ms(ts[0], now) / 1000.0);
	fmt_hms(tot, sizeof(tot), (double)ts[0]->scn->duration_ms / 1000.0);

	if ((f = open_memstream(&line, &len)) == NULL)
		goto out;
	for (i = 0; i < nt; i++) {
		fprintf(f, "%strial %d/%zu %s  %s/%s", i ? " | " : "",
		    ts[i]->pt.index + 1, ts[i]->ntrials, ts[i]->var->name, el,
		    tot);
		put_view(f, &vs[i]);
	}
	if (fclose(f) != 0)
		goto out;

	cols = progress_tty ? term_cols() : 0;
	if (cols > 0 && len >= cols && nt > 1) {
		/* The slot as one: sums, and the extremes over trials. */
		sum = vs[0];
		sum.nncols = 0;	/* no room: per-trial figures only */
		sum.over = 0;
		for (i = 1; i < nt; i++) {
			if (vs[i].have_h && (!sum.have_h ||
			    vs[i].hmin < sum.hmin))
				sum.hmin = vs[i].hmin;
			if (vs[i].have_h && (!sum.have_h ||
			    vs[i].hmax > sum.hmax))
				sum.hmax = vs[i].hmax;
			sum.have_h |= vs[i].have_h;
			if (vs[i].have_lag && (!sum.have_lag ||
			    vs[i].lag > sum.lag))
				sum.lag = vs[i].lag;
			sum.have_lag |= vs[i].have_lag;
			if (vs[i].rss > sum.rss)
				sum.rss = vs[i].rss;
			sum.usage |= vs[i].usage;
			sum.paused += vs[i].paused;
			sum.target_tps += vs[i].target_tps;
			sum.tps += vs[i].tps;
			sum.samples += vs[i].samples;
			sum.problems += vs[i].problems;
			sum.has_load |= vs[i].has_load;
		}
		if ((f = open_memstream(&all, &alllen)) == NULL)
			goto out;
		fprintf(f, "trials %d..%d of %zu (%d side by side)  %s/%s",
		    ts[0]->pt.index + 1, ts[nt - 1]->pt.index + 1,
		    ts[0]->ntrials, nt, el, tot);
		put_view(f, &sum);
		if (fclose(f) != 0)
			goto out;
		free(line);
		line = all;
		len = alllen;
		all = NULL;
	}
	/* Never wider than the terminal: a wrapped line is not rewritten. */
	if (cols > 0 && len >= cols)
		line[cols - 1] = '\0';
	if (progress_tty)
		fprintf(stderr, "\r\033[K%s", line);
	else
		fprintf(stderr, "%s\n", line);
out:
	free(all);
	free(line);
	free(vs);
}
