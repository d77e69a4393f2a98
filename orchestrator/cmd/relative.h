/*
 * relative.h: the scenario's `relative` assertions (docs/scenarios.md,
 * "Assertions") judged on two sides by the verdict (verdict/compare-
 * relative.c), the one way `ab` and `compare` both do it (relative.c).
 */
#ifndef DN_CMD_RELATIVE_H
#define DN_CMD_RELATIVE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "assert/assert.h"

struct dn_store;
struct scenario;

/* What relative_judge found: counts, and each assertion's result as a
 * JUnit case (judged or not; the strings owned here). */
struct relative_counts {
	int			 judged, failed, inconclusive;
	struct assert_case	*cases;
	size_t			 ncases;
};

/*
 * Judge each relative assertion of SCN whose two variants are among
 * VARIANTS[0..N-1], on the sides SPECS[i] ("3:A", "12,14") whose runs are
 * of those variants; one line each on OUT ("devnet: assert FAIL: NAME:
 * ..."), and one for an assertion whose variants are not both there.
 * With RUNS (NRUNS of them), one row per run in `assertions` (ab: the
 * group's runs; compare stores nothing).  Adds to *C, a case per
 * relative assertion included (release it).
 */
void	 relative_judge(struct dn_store *s, const struct scenario *scn,
	    const char *const *variants, const char *const *specs, size_t n,
	    const int64_t *runs, size_t nruns, FILE *out,
	    struct relative_counts *c);

/*
 * `compare A B`: the scenario of side A's runs, loaded from the text
 * stored with them, and each side's variant (NULL when its runs mix
 * variants or scenarios).  *SCN NULL when the runs have no stored
 * scenario; -1 with *CAUSE when it does not load.
 */
int	 relative_sides(struct dn_store *s, const char *side_a,
	    const char *side_b, struct scenario **scn, char *variants[2],
	    char **cause);

/* Free C's cases (C itself is the caller's). */
void	 relative_counts_release(struct relative_counts *c);

/* Exit status STATUS raised by C: 4 one failed, 5 none failed but one
 * was inconclusive; a status already set (1, 3, 6) stays. */
int	 relative_status(int status, const struct relative_counts *c);

#endif
