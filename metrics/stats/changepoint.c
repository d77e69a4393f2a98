/*
 * changepoint.c: E-divisive means with Hunter's t-test and weak change
 * point removal (see changepoint.h for the method and its sources).  Not
 * a place for formatting or for mapping indices to commits.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "changepoint.h"
#include "stats.h"
#include "xalloc.h"

/*
 * W(a, b) = sum over a <= i < j < b of |x[i] - x[j]|, for 0 <= a <= b <=
 * n, in a triangular table: every energy statistic below is a difference
 * of three of these.
 */
struct energy {
	double	*w;
	size_t	 n;
};

static size_t
tri(size_t a, size_t b)
{
	return (b * (b + 1) / 2 + a);
}

static double
energy_w(const struct energy *e, size_t a, size_t b)
{
	return (e->w[tri(a, b)]);
}

static void
energy_init(struct energy *e, const double *x, size_t n)
{
	size_t	a, b;
	double	c;

	e->n = n;
	e->w = dn_xcalloc((n + 1) * (n + 2) / 2, sizeof(*e->w));
	for (b = 1; b <= n; b++) {
		/* W(a, b) adds the distances of x[b-1] to x[a..b-2]. */
		c = 0;
		for (a = b - 1; a-- > 0;) {
			c += fabs(x[a] - x[b - 1]);
			e->w[tri(a, b)] = e->w[tri(a, b - 1)] + c;
		}
	}
}

/* q-hat of X = [s, t) against Y = [t, k): m k / (m + k) times the
 * energy distance 2 E|X-Y| - E|X-X'| - E|Y-Y'|.  Needs m, k >= 2. */
static double
qhat(const struct energy *e, size_t s, size_t t, size_t k)
{
	double	m = (double)(t - s), r = (double)(k - t);
	double	wx = energy_w(e, s, t), wy = energy_w(e, t, k);
	double	between = energy_w(e, s, k) - wx - wy;
	double	d;

	d = 2 * between / (m * r) - wx / (m * (m - 1) / 2) -
	    wy / (r * (r - 1) / 2);
	return (m * r / (m + r) * d);
}

/* Student's two-sample t-test (pooled variance), two-sided, of X[a, t)
 * against X[t, b); fills the means and returns p. */
static double
student(const double *x, size_t a, size_t t, size_t b, double *m1,
    double *m2)
{
	size_t	n1 = t - a, n2 = b - t, i;
	double	s1 = 0, s2 = 0, v = 0, df, se;

	for (i = a; i < t; i++)
		s1 += x[i];
	for (i = t; i < b; i++)
		s2 += x[i];
	*m1 = s1 / n1;
	*m2 = s2 / n2;
	for (i = a; i < t; i++)
		v += (x[i] - *m1) * (x[i] - *m1);
	for (i = t; i < b; i++)
		v += (x[i] - *m2) * (x[i] - *m2);
	if (n1 + n2 < 3)
		return (1);
	df = (double)(n1 + n2 - 2);
	se = sqrt(v / df * (1.0 / n1 + 1.0 / n2));
	if (se == 0)
		return (*m1 == *m2 ? 1 : 0);
	return (dn_stats_t_p2((*m2 - *m1) / se, df));
}

static double
magnitude(double m1, double m2)
{
	double	f, b;

	if (m1 == m2)
		return (0);
	if (m1 == 0 || m2 == 0)
		return (INFINITY);
	f = fabs(m2 / m1 - 1);
	b = fabs(m1 / m2 - 1);
	return (f > b ? f : b);
}

/* The change points found so far: sorted indices, with 0 and n as the
 * outer bounds (bound[0] = 0, bound[nb - 1] = n). */
struct bounds {
	size_t	*v;
	size_t	 n;
};

static void
bounds_insert(struct bounds *b, size_t at, size_t idx)
{
	memmove(&b->v[at + 1], &b->v[at], (b->n - at) * sizeof(*b->v));
	b->v[at] = idx;
	b->n++;
}

static void
bounds_remove(struct bounds *b, size_t at)
{
	memmove(&b->v[at], &b->v[at + 1], (b->n - at - 1) * sizeof(*b->v));
	b->n--;
}

/* The best split of segment [s, e): the (tau, kappa) with the largest
 * q-hat, the first one on ties; kappa is e unless SEARCH_KAPPA.  Returns
 * 0 if the segment is too short. */
static int
best_split(const struct energy *en, size_t s, size_t e, size_t min,
    int search_kappa, size_t *tau, size_t *kappa, double *q)
{
	size_t	t, k;
	double	v;
	int	found = 0;

	if (e - s < 2 * min)
		return (0);
	for (t = s + min; t + min <= e; t++) {
		for (k = search_kappa ? t + min : e; k <= e; k++) {
			v = qhat(en, s, t, k);
			if (!found || v > *q) {
				*q = v;
				*tau = t;
				*kappa = k;
				found = 1;
			}
		}
	}
	return (found);
}

/* Phase 1: hierarchical E-divisive.  DONE[i] marks segment [v[i],
 * v[i+1]) as having no significant split left. */
static void
split(const double *x, const struct energy *en, const struct dn_cp_opts *o,
    struct bounds *b)
{
	unsigned char	*done = dn_xcalloc(b->n + en->n, 1);
	double		 split_p = 10 * o->max_p, q, bestq = 0, m1, m2;
	size_t		 i, t, k, bi = 0, bt = 0, bk = 0;
	int		 any;

	for (;;) {
		any = 0;
		for (i = 0; i + 1 < b->n; i++) {
			if (done[i])
				continue;
			if (!best_split(en, b->v[i], b->v[i + 1], o->min_size,
			    o->search_kappa, &t, &k, &q)) {
				done[i] = 1;
				continue;
			}
			if (!any || q > bestq) {
				bestq = q;
				bi = i;
				bt = t;
				bk = k;
				any = 1;
			}
		}
		if (!any)
			break;
		if (student(x, b->v[bi], bt, bk, &m1, &m2) < split_p) {
			bounds_insert(b, bi + 1, bt);
			memmove(&done[bi + 1], &done[bi], b->n - 2 - bi);
			done[bi] = done[bi + 1] = 0;
		} else
			done[bi] = 1;
	}
	free(done);
}

/* Phase 2: Hunter's weak change point removal.  Fills CP (b->n - 2
 * entries) with the survivors' statistics. */
static void
merge(const double *x, const struct dn_cp_opts *o, struct bounds *b,
    struct dn_cp *cp)
{
	size_t	i, nc, weak;

	for (;;) {
		nc = b->n - 2;
		if (nc == 0)
			return;
		for (i = 0; i < nc; i++) {
			struct dn_cp	*c = &cp[i];

			c->index = b->v[i + 1];
			c->n_before = b->v[i + 1] - b->v[i];
			c->n_after = b->v[i + 2] - b->v[i + 1];
			c->p = student(x, b->v[i], b->v[i + 1], b->v[i + 2],
			    &c->mean_before, &c->mean_after);
		}
		weak = 0;
		for (i = 1; i < nc; i++) {
			if (cp[i].p > cp[weak].p)
				weak = i;
		}
		if (!(cp[weak].p >= o->max_p)) {
			weak = 0;
			for (i = 1; i < nc; i++) {
				if (magnitude(cp[i].mean_before,
				    cp[i].mean_after) <
				    magnitude(cp[weak].mean_before,
				    cp[weak].mean_after))
					weak = i;
			}
			if (magnitude(cp[weak].mean_before,
			    cp[weak].mean_after) > o->min_magnitude)
				return;
		}
		bounds_remove(b, weak + 1);
	}
}

void
dn_cp_opts_init(struct dn_cp_opts *o)
{
	o->min_size = 3;
	o->max_p = 0.001;
	o->min_magnitude = 0;
	o->search_kappa = 0;
}

int
dn_changepoints(const double *x, size_t n, const struct dn_cp_opts *o,
    struct dn_cp **out, size_t *nout, char **cause)
{
	struct dn_cp_opts	 def;
	struct energy		 en = { NULL, 0 };
	struct bounds		 b = { NULL, 0 };
	struct dn_cp		*cp = NULL;
	size_t			 i, nc;
	int			 rc = -1;

	*out = NULL;
	*nout = 0;
	if (o == NULL) {
		dn_cp_opts_init(&def);
		o = &def;
	}
	if (o->min_size < 2 || !(o->max_p > 0 && o->max_p <= 1) ||
	    !(o->min_magnitude >= 0)) {
		*cause = dn_xasprintf("change points: min_size must be at "
		    "least 2, max_p in (0, 1], min_magnitude at least 0");
		return (-1);
	}
	if (n > DN_CP_MAX_N) {
		*cause = dn_xasprintf("change points: %zu values, at most %d "
		    "are supported", n, DN_CP_MAX_N);
		return (-1);
	}
	for (i = 0; i < n; i++) {
		if (!isfinite(x[i])) {
			*cause = dn_xasprintf("change points: value %zu is "
			    "not a finite number", i);
			return (-1);
		}
	}
	if (n < 2 * o->min_size)
		return (0);

	energy_init(&en, x, n);
	b.v = dn_xcalloc(n + 2, sizeof(*b.v));
	b.v[b.n++] = 0;
	b.v[b.n++] = n;
	split(x, &en, o, &b);
	cp = dn_xcalloc(b.n, sizeof(*cp));
	merge(x, o, &b, cp);
	nc = b.n - 2;
	for (i = 0; i < nc; i++) {
		cp[i].change_pct = cp[i].mean_before == 0 ? NAN :
		    100 * (cp[i].mean_after / cp[i].mean_before - 1);
	}
	if (nc > 0) {
		*out = cp;
		cp = NULL;
	}
	*nout = nc;
	rc = 0;
	free(cp);
	free(b.v);
	free(en.w);
	return (rc);
}
