/* stats.c: see stats.h and docs/statistics.md.  Descriptive statistics,
 * the tests (Mann-Whitney, Welch, Holm) and the bootstrap; power and
 * minimum detectable effects are in stats-power.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "stats.h"
#include "stats-internal.h"
#include "xalloc.h"

int
dn_stats_dbl_cmp(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return (x < y ? -1 : x > y ? 1 : 0);
}

static double *
sorted_copy(const double *x, size_t n)
{
	double	*c = dn_xreallocarray(NULL, n ? n : 1, sizeof(*c));

	memcpy(c, x, n * sizeof(*c));
	qsort(c, n, sizeof(*c), dn_stats_dbl_cmp);
	return (c);
}

double
dn_stats_mean(const double *x, size_t n)
{
	double	s = 0;
	size_t	i;

	if (n == 0)
		return (NAN);
	for (i = 0; i < n; i++)
		s += x[i];
	return (s / n);
}

double
dn_stats_max(const double *x, size_t n)
{
	double	m;
	size_t	i;

	if (n == 0)
		return (NAN);
	for (m = x[0], i = 1; i < n; i++)
		if (x[i] > m)
			m = x[i];
	return (m);
}

/* Quantile of an already sorted array. */
static double
quantile_sorted(const double *c, size_t n, double q)
{
	double	h, lo;
	size_t	i;

	if (n == 0)
		return (NAN);
	if (q <= 0)
		return (c[0]);
	if (q >= 1)
		return (c[n - 1]);
	h = (n - 1) * q;
	lo = floor(h);
	i = (size_t)lo;
	if (i + 1 >= n)
		return (c[n - 1]);
	return (c[i] + (h - lo) * (c[i + 1] - c[i]));
}

double
dn_stats_quantile(const double *x, size_t n, double q)
{
	double	*c, v;

	if (n == 0)
		return (NAN);
	c = sorted_copy(x, n);
	v = quantile_sorted(c, n, q);
	free(c);
	return (v);
}

/* Reorder X[0..n) so that X[k] is the value a sort would put there,
 * everything before it <= and everything after it >= (Wirth's select:
 * linear on average). */
static void
select_kth(double *x, size_t n, size_t k)
{
	long	l = 0, m = (long)n - 1, i, j, kk = (long)k;
	double	p, t;

	while (l < m) {
		p = x[kk];
		i = l;
		j = m;
		do {
			while (x[i] < p)
				i++;
			while (p < x[j])
				j--;
			if (i <= j) {
				t = x[i];
				x[i] = x[j];
				x[j] = t;
				i++;
				j--;
			}
		} while (i <= j);
		if (j < kk)
			l = i;
		if (kk < i)
			m = j;
	}
}

void
dn_stats_quantiles_inplace(double *x, size_t n, const double *q,
    double *out, size_t nq)
{
	size_t	i, k, m;
	double	h, lo, next;

	for (i = 0; i < nq; i++) {
		if (n == 0) {
			out[i] = NAN;
			continue;
		}
		h = q[i] <= 0 ? 0 : q[i] >= 1 ? (double)(n - 1) :
		    (double)(n - 1) * q[i];
		lo = floor(h);
		k = (size_t)lo;
		select_kth(x, n, k);
		out[i] = x[k];
		if (h > lo && k + 1 < n) {
			/* the next order statistic: the least of what
			 * the select left after X[k] */
			next = x[k + 1];
			for (m = k + 2; m < n; m++)
				if (x[m] < next)
					next = x[m];
			out[i] += (h - lo) * (next - x[k]);
		}
	}
}

double
dn_stats_median(const double *x, size_t n)
{
	return (dn_stats_quantile(x, n, 0.5));
}

double
dn_stats_slope(const double *t, const double *y, size_t n)
{
	double	mt, my, sxy = 0, sxx = 0;
	size_t	i;

	if (n < 2)
		return (NAN);
	mt = dn_stats_mean(t, n);
	my = dn_stats_mean(y, n);
	for (i = 0; i < n; i++) {
		sxy += (t[i] - mt) * (y[i] - my);
		sxx += (t[i] - mt) * (t[i] - mt);
	}
	if (sxx == 0)
		return (NAN);
	return (sxy / sxx);
}

double
dn_stats_mwu_min_p(size_t nx, size_t ny)
{
	double	c = 1;
	size_t	i;

	if (nx == 0 || ny == 0)
		return (1);
	/* C(nx + ny, nx), built up without overflow for sane sizes. */
	for (i = 1; i <= nx; i++)
		c = c * (ny + i) / i;
	return (fmin(1.0, 2.0 / c));
}

/*
 * Exact null distribution of U for sizes M, N: counts N(u; m, n) with
 * N(u; i, j) = N(u - j; i - 1, j) + N(u; i, j - 1) (the largest value
 * belongs to the first sample or not).  Returns the M * N + 1 counts
 * (caller frees) and their sum in *TOTAL.
 */
double *
dn_stats_mwu_dist(size_t m, size_t n, double *total)
{
	size_t	 umax = m * n, w = umax + 1, i, j, k;
	double	*prev = dn_xcalloc((n + 1) * w, sizeof(double));
	double	*cur = dn_xcalloc((n + 1) * w, sizeof(double));
	double	*tmp, *out;

	/* i = 0: U is 0 whatever j is. */
	for (j = 0; j <= n; j++)
		prev[j * w] = 1;
	for (i = 1; i <= m; i++) {
		memset(cur, 0, (n + 1) * w * sizeof(double));
		cur[0] = 1;	/* j = 0 */
		for (j = 1; j <= n; j++) {
			for (k = 0; k <= i * j; k++) {
				double	v = cur[(j - 1) * w + k];

				if (k >= j)
					v += prev[j * w + k - j];
				cur[j * w + k] = v;
			}
		}
		tmp = prev;
		prev = cur;
		cur = tmp;
	}
	out = dn_xreallocarray(NULL, w, sizeof(double));
	memcpy(out, prev + n * w, w * sizeof(double));
	for (*total = 0, k = 0; k <= umax; k++)
		*total += out[k];
	free(prev);
	free(cur);
	return (out);
}

/* P(U <= u) and P(U >= u) under the exact null for sizes M, N. */
static void
mwu_exact(size_t m, size_t n, double u, double *le, double *ge)
{
	double	 total, lo = 0, hi = 0, *c = dn_stats_mwu_dist(m, n, &total);
	size_t	 k;

	for (k = 0; k <= m * n; k++) {
		if (k <= u + 1e-9)
			lo += c[k];
		if (k + 1e-9 >= u)
			hi += c[k];
	}
	free(c);
	*le = lo / total;
	*ge = hi / total;
}

struct ranked {
	double	v;
	int	from_x;
	size_t	at;	/* index in x then y */
};

static int
ranked_cmp(const void *a, const void *b)
{
	return (dn_stats_dbl_cmp(&((const struct ranked *)a)->v,
	    &((const struct ranked *)b)->v));
}

/*
 * The test proper.  RANKS (nx + ny, may be NULL) receives the mid-rank of
 * every value, x first.  DEFF > 0 forces the normal approximation with the
 * null variance multiplied by DEFF.
 */
static int
mwu_core(const double *x, size_t nx, const double *y, size_t ny,
    double deff, double *ranks, struct dn_mwu *r)
{
	size_t		 n = nx + ny, i, j, k;
	struct ranked	*all;
	double		 rx = 0, tie_sum = 0, mu, sigma, z, d;
	int		 ties = 0;

	memset(r, 0, sizeof(*r));
	r->p = NAN;
	r->deff = deff > 0 ? deff : 1;
	if (nx == 0 || ny == 0)
		return (-1);
	all = dn_xreallocarray(NULL, n, sizeof(*all));
	for (i = 0; i < nx; i++)
		all[i] = (struct ranked){ x[i], 1, i };
	for (i = 0; i < ny; i++)
		all[nx + i] = (struct ranked){ y[i], 0, nx + i };
	qsort(all, n, sizeof(*all), ranked_cmp);
	for (i = 0; i < n; i = j) {
		double	 rank, t;

		for (j = i + 1; j < n && all[j].v == all[i].v; j++)
			;
		rank = (i + 1 + j) / 2.0;	/* mid-rank of i+1..j */
		t = j - i;
		if (t > 1) {
			ties = 1;
			tie_sum += t * t * t - t;
		}
		for (k = i; k < j; k++) {
			if (all[k].from_x)
				rx += rank;
			if (ranks != NULL)
				ranks[all[k].at] = rank;
		}
	}
	free(all);
	r->u = rx - nx * (nx + 1) / 2.0;
	if (deff <= 0 && !ties && nx <= DN_MWU_EXACT_MAX &&
	    ny <= DN_MWU_EXACT_MAX) {
		double	le, ge;

		mwu_exact(nx, ny, r->u, &le, &ge);
		r->p = fmin(1.0, 2.0 * fmin(le, ge));
		r->exact = 1;
		return (0);
	}
	mu = nx * ny / 2.0;
	sigma = sqrt(r->deff * nx * ny / 12.0 * ((n + 1) - tie_sum /
	    ((double)n * (n - 1))));
	if (!(sigma > 0)) {
		r->p = 1;
		return (0);
	}
	d = fabs(r->u - mu) - 0.5;	/* continuity correction */
	z = d > 0 ? d / sigma : 0;
	r->p = fmin(1.0, erfc(z / M_SQRT2));
	return (0);
}

int
dn_stats_mwu(const double *x, size_t nx, const double *y, size_t ny,
    struct dn_mwu *r)
{
	return (mwu_core(x, nx, y, ny, 0, NULL, r));
}

/* Between- and within-cluster sums of squares of V (clusters C), around
 * the sample's own mean; adds to *SSB, *SSW, *K (clusters). */
static void
anova_add(const double *v, const int *c, size_t n, double *ssb, double *ssw,
    size_t *k)
{
	double	mean = dn_stats_mean(v, n), *sum, *cnt;
	int	maxc = 0;
	size_t	i;

	for (i = 0; i < n; i++)
		if (c[i] > maxc)
			maxc = c[i];
	sum = dn_xcalloc(maxc + 1, sizeof(double));
	cnt = dn_xcalloc(maxc + 1, sizeof(double));
	for (i = 0; i < n; i++) {
		sum[c[i]] += v[i];
		cnt[c[i]] += 1;
	}
	for (i = 0; i <= (size_t)maxc; i++) {
		if (cnt[i] == 0)
			continue;
		(*k)++;
		*ssb += cnt[i] * (sum[i] / cnt[i] - mean) *
		    (sum[i] / cnt[i] - mean);
	}
	for (i = 0; i < n; i++) {
		double	d = v[i] - sum[c[i]] / cnt[c[i]];

		*ssw += d * d;
	}
	free(sum);
	free(cnt);
}

int
dn_stats_mwu_clustered(const double *x, const int *cx, size_t nx,
    const double *y, const int *cy, size_t ny, struct dn_mwu *r)
{
	double	*ranks, ssb = 0, ssw = 0, msb, msw, deff = 1;
	size_t	 kx = 0, ky = 0, n = nx + ny, k;
	int	 rc;

	if (nx == 0 || ny == 0)
		return (mwu_core(x, nx, y, ny, 0, NULL, r));
	ranks = dn_xreallocarray(NULL, n, sizeof(double));
	/* First pass only for the ranks. */
	mwu_core(x, nx, y, ny, 1, ranks, r);
	anova_add(ranks, cx, nx, &ssb, &ssw, &kx);
	anova_add(ranks + nx, cy, ny, &ssb, &ssw, &ky);
	k = kx + ky;
	/*
	 * The textbook design effect is 1 + (m - 1) ICC with ICC from
	 * (MSB - MSW) / m; with a handful of trials that estimate is often
	 * too small, and an A/A comparison then finds "differences".  MSB /
	 * MSW is an upper bound of the same quantity (it also counts the
	 * between-trial variance as a fraction of the within-trial one) and
	 * keeps A/A honest (docs/statistics.md has the sweep).
	 */
	if (k > 2 && n > k) {
		msb = ssb / (k - 2);
		msw = ssw / (n - k);
		if (msw > 0 && msb > msw)
			deff = msb / msw;
		else if (msw == 0 && msb > 0)
			deff = (double)n / k;
	}
	free(ranks);
	rc = mwu_core(x, nx, y, ny, deff, NULL, r);
	return (rc);
}

/* Lentz's guard against a zero denominator. */
static double
nonzero(double v)
{
	return (fabs(v) < 1e-300 ? 1e-300 : v);
}

/* Continued fraction of the incomplete beta function (modified Lentz):
 * even and odd steps alternate between the two coefficient forms. */
static double
betacf(double a, double b, double x)
{
	double	qab = a + b, qap = a + 1, qam = a - 1, c = 1, d, h, aa, del;
	int	i, m;

	d = 1 / nonzero(1 - qab * x / qap);
	h = d;
	for (i = 2; i <= 600; i++) {
		m = i / 2;
		if (i % 2 == 0)
			aa = m * (b - m) * x / ((qam + 2 * m) * (a + 2 * m));
		else
			aa = -(a + m) * (qab + m) * x / ((a + 2 * m) *
			    (qap + 2 * m));
		d = 1 / nonzero(1 + aa * d);
		c = nonzero(1 + aa / c);
		del = d * c;
		h *= del;
		if (i % 2 == 1 && fabs(del - 1) < 1e-15)
			break;
	}
	return (h);
}

/* Regularized incomplete beta I_x(a, b). */
static double
betai(double a, double b, double x)
{
	double	bt;

	if (x <= 0)
		return (0);
	if (x >= 1)
		return (1);
	bt = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
	    b * log(1 - x));
	if (x < (a + 1) / (a + b + 2))
		return (bt * betacf(a, b, x) / a);
	return (1 - bt * betacf(b, a, 1 - x) / b);
}

double
dn_stats_t_p2(double t, double df)
{
	if (isnan(t) || !(df > 0))
		return (NAN);
	if (isinf(t))
		return (0);
	return (betai(df / 2, 0.5, df / (df + t * t)));
}

static double
variance(const double *x, size_t n, double mean)
{
	double	s = 0;
	size_t	i;

	for (i = 0; i < n; i++)
		s += (x[i] - mean) * (x[i] - mean);
	return (s / (n - 1));
}

int
dn_stats_welch(const double *x, size_t nx, const double *y, size_t ny,
    struct dn_welch *r)
{
	double	mx, my, vx, vy, se2;

	r->t = r->df = r->p = NAN;
	if (nx < 2 || ny < 2)
		return (-1);
	mx = dn_stats_mean(x, nx);
	my = dn_stats_mean(y, ny);
	vx = variance(x, nx, mx) / nx;
	vy = variance(y, ny, my) / ny;
	se2 = vx + vy;
	if (se2 == 0) {
		/*
		 * No spread on either side: equal means are no evidence of a
		 * difference (p = 1), different means no evidence of anything
		 * the t statistic can scale (t is infinite only because the
		 * spread estimate is 0).  p is undefined then, never 0: the
		 * caller decides (docs/statistics.md, "zero spread").
		 */
		r->t = mx == my ? 0 : (mx > my ? INFINITY : -INFINITY);
		r->df = nx + ny - 2;
		r->p = mx == my ? 1 : NAN;
		return (0);
	}
	r->t = (mx - my) / sqrt(se2);
	r->df = se2 * se2 / ((vx * vx) / (nx - 1) + (vy * vy) / (ny - 1));
	r->p = dn_stats_t_p2(r->t, r->df);
	return (0);
}

struct pidx {
	double	p;
	size_t	i;
};

static int
pidx_cmp(const void *a, const void *b)
{
	return (dn_stats_dbl_cmp(&((const struct pidx *)a)->p,
	    &((const struct pidx *)b)->p));
}

void
dn_stats_holm(const double *p, size_t n, double *adj)
{
	struct pidx	*v = dn_xreallocarray(NULL, n ? n : 1, sizeof(*v));
	size_t		 m = 0, k;
	double		 run = 0;

	for (k = 0; k < n; k++) {
		if (!isnan(p[k]))
			v[m++] = (struct pidx){ p[k], k };
	}
	qsort(v, m, sizeof(*v), pidx_cmp);
	for (k = 0; k < n; k++) {
		if (isnan(p[k]))
			adj[k] = NAN;
	}
	for (k = 0; k < m; k++) {
		double	a = fmin(1.0, (m - k) * v[k].p);

		run = fmax(run, a);	/* keep the adjusted p monotone */
		adj[v[k].i] = run;
	}
	free(v);
}

/* Values grouped by cluster, for the two-stage resample. */
struct clusters {
	size_t	  k;		/* clusters */
	size_t	 *start;	/* k + 1 offsets into val */
	double	 *val;
	size_t	  n;
};

static void
clusters_build(struct clusters *c, const double *x, const int *cx, size_t n)
{
	size_t	i, j, *order;
	int	maxc = -1;

	memset(c, 0, sizeof(*c));
	c->n = n;
	c->val = dn_xreallocarray(NULL, n ? n : 1, sizeof(double));
	if (cx == NULL) {
		c->k = n;
		c->start = dn_xreallocarray(NULL, n + 1, sizeof(size_t));
		for (i = 0; i <= n; i++)
			c->start[i] = i;
		memcpy(c->val, x, n * sizeof(double));
		return;
	}
	for (i = 0; i < n; i++)
		if (cx[i] > maxc)
			maxc = cx[i];
	order = dn_xcalloc(maxc + 2, sizeof(size_t));
	for (i = 0; i < n; i++)
		order[cx[i] + 1]++;
	/* Drop empty cluster ids: compact the offsets. */
	c->start = dn_xcalloc(maxc + 2, sizeof(size_t));
	for (j = 0, i = 0; i < (size_t)maxc + 1; i++) {
		if (order[i + 1] == 0)
			continue;
		c->start[j + 1] = c->start[j] + order[i + 1];
		order[i + 1] = j++;	/* now the compact index */
	}
	c->k = j;
	{
		size_t	*fill = dn_xcalloc(c->k + 1, sizeof(size_t));

		for (i = 0; i < n; i++) {
			size_t	ci = order[cx[i] + 1];

			c->val[c->start[ci] + fill[ci]++] = x[i];
		}
		free(fill);
	}
	free(order);
}

static void
clusters_release(struct clusters *c)
{
	free(c->start);
	free(c->val);
}

/* One two-stage resample's median; BUF holds at least c->n * 2 values. */
static double
resample_median(const struct clusters *c, uint64_t *rng, double *buf)
{
	size_t	m = 0, i, j;

	for (i = 0; i < c->k; i++) {
		size_t	ci = (size_t)(dn_rand01(rng) * c->k);
		size_t	lo = c->start[ci], sz = c->start[ci + 1] - lo;

		for (j = 0; j < sz; j++)
			buf[m++] = c->val[lo + (size_t)(dn_rand01(rng) * sz)];
	}
	qsort(buf, m, sizeof(*buf), dn_stats_dbl_cmp);
	return (quantile_sorted(buf, m, 0.5));
}

int
dn_stats_bootstrap(const double *a, const int *ca, size_t na,
    const double *b, const int *cb, size_t nb, int iters, uint64_t seed,
    double conf, struct dn_boot *out)
{
	struct clusters	 A, B;
	double		*ma, *mb, *d, *buf;
	size_t		 nd = 0, cap;
	uint64_t	 rng = seed;
	double		 lo = (1 - conf) / 2, hi = 1 - lo;
	int		 it;

	out->a_lo = out->a_hi = out->b_lo = out->b_hi = NAN;
	out->d_lo = out->d_hi = NAN;
	if (na == 0 || nb == 0 || iters <= 0)
		return (-1);
	clusters_build(&A, a, ca, na);
	clusters_build(&B, b, cb, nb);
	/* A two-stage resample can draw the biggest cluster every time. */
	cap = (na > nb ? na : nb) * (A.k > B.k ? A.k : B.k) + 1;
	buf = dn_xreallocarray(NULL, cap, sizeof(double));
	ma = dn_xreallocarray(NULL, iters, sizeof(double));
	mb = dn_xreallocarray(NULL, iters, sizeof(double));
	d = dn_xreallocarray(NULL, iters, sizeof(double));
	for (it = 0; it < iters; it++) {
		ma[it] = resample_median(&A, &rng, buf);
		mb[it] = resample_median(&B, &rng, buf);
		if (ma[it] != 0)
			d[nd++] = 100.0 * (mb[it] / ma[it] - 1.0);
	}
	qsort(ma, iters, sizeof(double), dn_stats_dbl_cmp);
	qsort(mb, iters, sizeof(double), dn_stats_dbl_cmp);
	out->a_lo = quantile_sorted(ma, iters, lo);
	out->a_hi = quantile_sorted(ma, iters, hi);
	out->b_lo = quantile_sorted(mb, iters, lo);
	out->b_hi = quantile_sorted(mb, iters, hi);
	if (nd == (size_t)iters) {
		qsort(d, nd, sizeof(double), dn_stats_dbl_cmp);
		out->d_lo = quantile_sorted(d, nd, lo);
		out->d_hi = quantile_sorted(d, nd, hi);
	}
	free(ma);
	free(mb);
	free(d);
	free(buf);
	clusters_release(&A);
	clusters_release(&B);
	return (0);
}
