/*
 * foreign-lag.c: lag_blocks and lag_ms of foreign nodes, computed by the
 * collector.  devnet-node knows its peers' heights from gossip and sends
 * its own lag (docs/node.md, "Lag"); a program run by devnet-probe only
 * has its own height (a log extractor or a Prometheus series mapped to
 * `height`), so the collector, which sees every node's, fills in the rest
 * with the same meaning:
 *
 *   lag_blocks = the highest height any node of the trial has reported so
 *                far minus this node's height (never below 0);
 *   lag_ms     = when behind, this sample's time minus when some node
 *                first reported a height above this node's; else 0.
 *
 * Heights from different nodes arrive up to one sample interval apart, so
 * both are exact to within one interval; there is no block schedule to be
 * overdue against, so a chain that stalls everywhere shows no lag here.
 *
 * Not here: when a sample is stored (collector.c).
 */
#include <stdlib.h>
#include <string.h>

#include "trial/trial.h"
#include "buf.h"
#include "xalloc.h"

#define HIST_MAX	65536	/* heights remembered; the oldest half goes */

struct foreign_lag {
	double		*h;	/* ascending heights, each a new maximum */
	int64_t		*t;	/* when it was first reported */
	size_t		 n, cap;
};

void
foreign_lag(struct trial *t, int node, int64_t t_ms, double height,
    double *lag_blocks, double *lag_ms)
{
	struct foreign_lag	*f = t->flag;
	size_t			 lo, hi;

	(void)node;
	if (f == NULL)
		f = t->flag = dn_xcalloc(1, sizeof(*f));
	if (f->n == 0 || height > f->h[f->n - 1]) {
		if (f->n == HIST_MAX) {
			memmove(f->h, f->h + HIST_MAX / 2,
			    (HIST_MAX / 2) * sizeof(*f->h));
			memmove(f->t, f->t + HIST_MAX / 2,
			    (HIST_MAX / 2) * sizeof(*f->t));
			f->n = HIST_MAX / 2;
		}
		if (f->n == f->cap) {	/* two arrays, one capacity */
			size_t	cap = f->cap;

			f->h = dn_xgrow(f->h, &cap, f->n + 1, sizeof(*f->h));
			f->t = dn_xgrow(f->t, &f->cap, f->n + 1, sizeof(*f->t));
		}
		f->h[f->n] = height;
		f->t[f->n++] = t_ms;
	}
	*lag_blocks = f->h[f->n - 1] - height;
	*lag_ms = 0;
	if (*lag_blocks <= 0) {
		*lag_blocks = 0;
		return;
	}
	/* The first maximum above HEIGHT. */
	lo = 0;
	hi = f->n - 1;
	while (lo < hi) {
		size_t	mid = lo + (hi - lo) / 2;

		if (f->h[mid] > height)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (t_ms > f->t[lo])
		*lag_ms = (double)(t_ms - f->t[lo]);
}

void
foreign_lag_free(struct foreign_lag *f)
{
	if (f == NULL)
		return;
	free(f->h);
	free(f->t);
	free(f);
}
