/*
 * prom.h: the Prometheus text exposition format, version 0.0.4 (what
 * /metrics pages serve), read in place without allocating (prom.c).
 *
 *   # HELP name text            comments: skipped; TYPE is remembered
 *   # TYPE name counter|gauge|histogram|summary|untyped
 *   name{label="value",...} VALUE [TIMESTAMP]
 *
 * Metric names [a-zA-Z_:][a-zA-Z0-9_:]*, label names [a-zA-Z_][a-zA-Z0-9_]*,
 * label values in double quotes with the escapes \\ \" \n; blanks (space,
 * tab) between tokens; a trailing comma inside the braces is accepted;
 * VALUE a float including NaN, +Inf, -Inf; TIMESTAMP an integer (ms since
 * the epoch).  Lines end at '\n' ("\r\n" too); a literal newline cannot
 * occur inside a label value, so lines can be found with memchr.
 *
 * Not here: fetching the page (http.h), turning values into devnet
 * metrics (the probe).
 */
#ifndef DN_PROM_H
#define DN_PROM_H

#include <stddef.h>
#include <stdint.h>

/* One sample line, pointing into the text. */
struct dn_prom_sample {
	const char	*name;
	size_t		 name_len;
	const char	*labels;	/* inside the braces; NULL: none */
	size_t		 labels_len;
	size_t		 nlabels;
	double		 value;
	int64_t		 ts_ms;
	int		 has_ts;
};

/*
 * Parse one line LINE of LEN bytes (no '\n'; a trailing '\r' is ignored).
 * Returns 1 for a sample (*S filled), 0 for a comment or a blank line,
 * -1 for a malformed line with *ERR (static text) saying what is wrong.
 */
int	 dn_prom_parse_line(const char *line, size_t len,
	    struct dn_prom_sample *s, const char **err);

/*
 * The next label of a raw label span (struct dn_prom_sample labels): *P
 * starts at S->labels and moves on; END = labels + labels_len.  NAME and
 * VALUE (decoded: escapes resolved) are copied NUL-terminated into the
 * buffers, truncated to fit.  Returns 1 for a label, 0 at the end, -1 if
 * the span is malformed (it never is after dn_prom_parse_line said 1).
 */
int	 dn_prom_label_next(const char **p, const char *end, char *name,
	    size_t name_cap, char *value, size_t value_cap);

/* What a scrape wants: one exposition sample name; filled by
 * dn_prom_sum. */
enum dn_prom_type {
	DN_PROM_UNTYPED, DN_PROM_COUNTER, DN_PROM_GAUGE, DN_PROM_HISTOGRAM,
	DN_PROM_SUMMARY
};

struct dn_prom_want {
	const char		*name;		/* set by the caller */
	size_t			 name_len;	/* 0: strlen(name) */
	double			 sum;		/* over its label sets */
	size_t			 series;	/* lines seen; 0 = absent */
	int			 bad;		/* a line of it malformed */
	enum dn_prom_type	 type;		/* from "# TYPE name" */
};

struct dn_prom_stats {
	size_t	lines;		/* all lines */
	size_t	samples;	/* sample lines (checked or not) */
	size_t	bad;		/* malformed lines among those checked */
};

/*
 * Scan the page TEXT (LEN bytes) for the NW wanted names W: each want's
 * SUM is the sum of the values of every line with exactly that name,
 * whatever its labels (a counter split by label sets, e.g. per method or
 * per code, sums to its total), SERIES how many such lines.  A want
 * whose lines include a malformed one gets BAD.  A want's TYPE comes
 * from its "# TYPE" line (for _bucket/_sum/_count lines, from the
 * family's).  Only wanted lines are parsed in full, so a page of 1,000
 * series costs about one memchr per line.  *ST (may be NULL) counts the
 * page.  Returns the number of wants seen at least once.
 */
size_t	 dn_prom_sum(const char *text, size_t len, struct dn_prom_want *w,
	    size_t nw, struct dn_prom_stats *st);

/* "counter", "gauge", ... for T. */
const char *dn_prom_type_name(enum dn_prom_type t);

#endif
