/*
 * sequential.c: Lan-DeMets alpha spending, boundaries and repeated
 * p-values (see sequential.h, docs/statistics.md section 8).
 *
 * The score S_k = Z_k sqrt(t_k) of a test with independent increments
 * is Brownian motion in the information fraction t: S_k - S_{k-1} ~
 * N(0, t_k - t_{k-1}) under the null.  Its sub-density on the
 * continuation region of look k (no boundary crossed so far) is carried
 * from look to look on a grid with Simpson weights (Jennison & Turnbull
 * ch. 19): f_k(s) = sum_i w_i f_{k-1}(s_i) phi((s - s_i) / sd) / sd.
 * The boundary of look k is the c whose crossing probability from f_{k-1}
 * equals the alpha the spending function adds at t_k.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "verdict/sequential.h"
#include "stats.h"

#define GRID	101	/* odd: Simpson */
#define Z_LOW	8.0	/* one-sided: the continuation region's floor */
#define Z_HIGH	40.0	/* "never crossed" */

static double
phi_cdf(double z)
{
	return (0.5 * erfc(-z / M_SQRT2));
}

static double
phi_pdf(double z)
{
	return (exp(-0.5 * z * z) / sqrt(2.0 * M_PI));
}

static double
z_upper(double p)
{
	if (p <= 0)
		return (Z_HIGH);
	if (p >= 1)
		return (-Z_HIGH);
	return (dn_stats_norm_quantile(1.0 - p));
}

double
seq_spent(double alpha, double t, int sides)
{
	if (t <= 0)
		return (0);
	if (t > 1)
		t = 1;
	/* Each tail spends its share as Lan and DeMets' one-sided
	 * function does (gsDesign's sfLDOF): 2 - 2 Phi(z_{1-a/2} / sqrt(t))
	 * for a one-sided level a. */
	if (sides == 2)
		return (2.0 * (2.0 - 2.0 * phi_cdf(z_upper(alpha / 4) /
		    sqrt(t))));
	return (2.0 - 2.0 * phi_cdf(z_upper(alpha / 2) / sqrt(t)));
}

double
seq_z_of_p(double p, int sides)
{
	return (z_upper(sides == 2 ? p / 2 : p));
}

/* The grid of the continuation region of a look at T with bound C. */
struct grid {
	double	s[GRID], w[GRID], f[GRID];
};

static void
grid_make(struct grid *g, double c, double t, int sides)
{
	double	lo, hi, h;
	int	i;

	hi = c * sqrt(t);
	lo = (sides == 2 ? -c : -Z_LOW) * sqrt(t);
	h = (hi - lo) / (GRID - 1);
	for (i = 0; i < GRID; i++) {
		g->s[i] = lo + h * i;
		g->w[i] = h / 3.0 * (i == 0 || i == GRID - 1 ? 1 :
		    i % 2 == 1 ? 4 : 2);
	}
}

/* Probability of crossing bound C at T from G (the previous look, at
 * information TP). */
static double
cross_prob(const struct grid *g, double tp, double t, double c, int sides)
{
	double	sd = sqrt(t - tp), hi = c * sqrt(t), p = 0;
	int	i;

	for (i = 0; i < GRID; i++) {
		double	q = 1.0 - phi_cdf((hi - g->s[i]) / sd);

		if (sides == 2)
			q += phi_cdf((-hi - g->s[i]) / sd);
		p += g->w[i] * g->f[i] * q;
	}
	return (p);
}

/* The bound at T (previous look's grid G at TP) that spends SPEND. */
static double
solve_bound(const struct grid *g, double tp, double t, double spend,
    int sides)
{
	double	lo = 0, hi = Z_HIGH;
	int	it;

	if (spend <= 1e-15)
		return (Z_HIGH);
	for (it = 0; it < 60; it++) {
		double	mid = 0.5 * (lo + hi);

		if (cross_prob(g, tp, t, mid, sides) > spend)
			lo = mid;
		else
			hi = mid;
	}
	return (0.5 * (lo + hi));
}

/* Carry the sub-density of G (at TP) to NG, the continuation region of
 * the look at T with bound C. */
static void
propagate(const struct grid *g, double tp, struct grid *ng, double t,
    double c, int sides)
{
	double	sd = sqrt(t - tp);
	int	i, j;

	grid_make(ng, c, t, sides);
	for (j = 0; j < GRID; j++) {
		double	v = 0;

		for (i = 0; i < GRID; i++)
			v += g->w[i] * g->f[i] *
			    phi_pdf((ng->s[j] - g->s[i]) / sd);
		ng->f[j] = v / sd;
	}
}

int
seq_bounds(const double *t, size_t k, double alpha, int sides, double *c)
{
	struct grid	*g, *ng, *tmp;
	double		 spent, prev = 0;
	size_t		 i;
	int		 j;

	if (k == 0 || k > SEQ_MAX_LOOKS || t[0] <= 0)
		return (-1);
	for (i = 1; i < k; i++)
		if (!(t[i] > t[i - 1]))
			return (-1);
	g = malloc(sizeof(*g));
	ng = malloc(sizeof(*ng));
	if (g == NULL || ng == NULL)
		abort();
	prev = seq_spent(alpha, t[0], sides);
	c[0] = z_upper(sides == 2 ? prev / 2 : prev);
	grid_make(g, c[0], t[0], sides);
	for (j = 0; j < GRID; j++)
		g->f[j] = phi_pdf(g->s[j] / sqrt(t[0])) / sqrt(t[0]);
	for (i = 1; i < k; i++) {
		spent = seq_spent(alpha, t[i], sides);
		c[i] = solve_bound(g, t[i - 1], t[i], spent - prev, sides);
		prev = spent;
		if (i + 1 < k) {
			propagate(g, t[i - 1], ng, t[i], c[i], sides);
			tmp = g;
			g = ng;
			ng = tmp;
		}
	}
	free(g);
	free(ng);
	return (0);
}

double
seq_repeated_p(const double *t, size_t k, double z, int sides)
{
	double	c[SEQ_MAX_LOOKS], lo, hi, mid;
	int	it;

	if (k == 0 || k > SEQ_MAX_LOOKS || isnan(z))
		return (NAN);
	if (sides == 2)
		z = fabs(z);
	/* Bisect on log alpha: the bound at look K falls as alpha grows. */
	lo = log(1e-12);
	hi = log(sides == 2 ? 0.9 : 0.45);
	if (seq_bounds(t, k, exp(hi), sides, c) != 0)
		return (NAN);
	if (z <= c[k - 1])
		return (exp(hi));
	if (seq_bounds(t, k, exp(lo), sides, c) != 0 || z >= c[k - 1])
		return (exp(lo));
	for (it = 0; it < 13; it++) {
		mid = 0.5 * (lo + hi);
		if (seq_bounds(t, k, exp(mid), sides, c) != 0)
			return (NAN);
		if (z >= c[k - 1])
			hi = mid;
		else
			lo = mid;
	}
	return (exp(hi));
}

static void
mean_var(const double *v, size_t n, double *m, double *var)
{
	double	s = 0, q = 0;
	size_t	i;

	for (i = 0; i < n; i++)
		s += v[i];
	*m = s / (double)n;
	for (i = 0; i < n; i++)
		q += (v[i] - *m) * (v[i] - *m);
	*var = q / (double)(n - 1);
}

double
seq_shift_p(const double *a, size_t na, const double *b, size_t nb,
    double ka, int sign)
{
	return (seq_shift_p_deff(a, na, b, nb, ka, sign, 1));
}

double
seq_shift_p_deff(const double *a, size_t na, const double *b, size_t nb,
    double ka, int sign, double deff)
{
	double	ma, va, mb, vb, d, qa, qb, se, df, p2, ea, eb;

	if (na < 2 || nb < 2)
		return (NAN);
	if (!(deff >= 1))
		deff = 1;
	mean_var(a, na, &ma, &va);
	mean_var(b, nb, &mb, &vb);
	d = sign * (ka * ma - mb);
	qa = deff * ka * ka * va / (double)na;
	qb = deff * vb / (double)nb;
	se = sqrt(qa + qb);
	if (se == 0 || !isfinite(se))
		return (d > 0 ? dn_stats_mwu_min_p(na, nb) / 2 : 1.0);
	/* effective counts, at least 2 a side */
	ea = fmax((double)na / deff, 2);
	eb = fmax((double)nb / deff, 2);
	df = (qa + qb) * (qa + qb) / (qa * qa / (ea - 1) +
	    qb * qb / (eb - 1));
	p2 = dn_stats_t_p2(d / se, df);
	return (d > 0 ? p2 / 2 : 1.0 - p2 / 2);
}
