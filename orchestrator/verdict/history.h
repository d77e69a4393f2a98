/*
 * history.h: the analysis behind `devnet history` and `devnet report
 * --history`: every stored run of a scenario in commit order, one series
 * per derived metric from the per-trial observations the verdict tests
 * (compare_run_observe), and the change points of each series
 * (metrics/stats/changepoint.h).  Reads the store only; prints nothing.
 * Method and choices: docs/statistics.md, "Change points across builds".
 */
#ifndef DN_HISTORY_H
#define DN_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "changepoint.h"

struct dn_store;

struct history_opts {
	const char		*scenario;	/* NULL: the only one stored */
	const char		*variant;	/* NULL: every variant */
	const char *const	*metrics;	/* NULL: every metric */
	size_t			 nmetrics;
	const char		*repo;		/* orders commits; NULL "." */
	int			 search_kappa;	/* dn_cp_opts.search_kappa */
	/* Only the runs of this machine class (a fingerprint or its prefix,
	 * "unknown": runs without one); NULL: the only class there is (runs
	 * of several are refused, with the list). */
	const char		*machine;
};

struct history_run {
	int64_t	 id;
	char	*variant;
	char	*commit;	/* full id, NULL when unknown */
	char	*describe;	/* NULL when unknown */
	int64_t	 start_ms;
	/* What build it ran: its commit, else its label, else the git
	 * describe of its binary's tree, else its binary's sha256; as
	 * printed ("label v1.2", "binary 1f2e3d4c5b6a"), and the key. */
	char	*build;
	char	*machine;	/* runs.machine, NULL unknown */
};

struct history_change {
	struct dn_cp	 cp;		/* index: first point after */
	const char	*direction;	/* better|worse|changed */
};

struct history_series {
	const char		*name, *unit, *better, *desc;	/* static */
	size_t			 n;
	size_t			*run;		/* point -> index in runs */
	double			*v;
	struct history_change	*changes;
	size_t			 nchanges;
};

struct history {
	char			*scenario;
	char			*order;		/* how runs were ordered */
	struct history_run	*runs;		/* in that order */
	size_t			 nruns;
	size_t			 ncommits;	/* distinct known commits */
	size_t			 nbuilds;	/* distinct builds */
	char			*machine;	/* the class shown, NULL if
						   unknown */
	struct history_series	*series;	/* one per metric asked */
	size_t			 nseries;
};

/*
 * Load and analyse.  Returns 0 with *HP (history_free), or -1 with *CAUSE
 * (caller frees): no such scenario (the message lists the stored ones),
 * an unknown metric, a store error.
 */
int	 history_load(struct dn_store *s, const struct history_opts *o,
	    struct history **hp, char **cause);
void	 history_free(struct history *h);

/* The commit range a change at point I of SERIES falls in, as "A..B" (git
 * notation: after A, up to and including B; short ids), "within A" when
 * both points are runs of one commit; without commits, the builds the
 * same way ("label v1..label v2", "within label v2").  Into BUF of CAP
 * bytes. */
void	 history_range(const struct history *h,
	    const struct history_series *sr, size_t i, char *buf, size_t cap);

#endif
