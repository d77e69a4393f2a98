/*
 * report-history.h: `devnet report --history`: one self-contained HTML
 * page (inline CSS and SVG, nothing fetched, no script) with, per metric,
 * the series of a scenario's runs in commit order, the change points
 * marked and the suspect commit ranges listed (history.h does the
 * analysis).
 */
#ifndef DN_REPORT_HISTORY_H
#define DN_REPORT_HISTORY_H

#include "verdict/history.h"

/* Analyse DB with O and write the page to OUTPUT (whole or not at all).
 * 0, or -1 with *CAUSE. */
int	 report_history_write(const char *db, const struct history_opts *o,
	    const char *output, char **cause);

#endif
