/*
 * report.h: the pages a person reads, each one self-contained HTML file
 * (inline CSS and SVG, nothing fetched, no script), and their one style
 * sheet.
 */
#ifndef DN_REPORT_H
#define DN_REPORT_H

#include <stdio.h>

struct compare_result;
struct dn_store;

/*
 * The A/B page of R (analysed by compare_analyze on S, the database DB) on
 * OUT: verdict table and one chart per metric.  0, or -1 with *CAUSE
 * (the caller frees it).
 */
int	 report_compare_write(struct dn_store *s,
	    const struct compare_result *r, const char *db, FILE *out,
	    char **cause);

/* The style sheet every page shares; each page adds its own rules after
 * it (report_css_compare, report_css_history). */
extern const char report_css[];
extern const char report_css_compare[];
extern const char report_css_history[];

#endif
