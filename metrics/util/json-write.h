/*
 * json-write.h: the one JSON writer of every output form (compare's,
 * history's and query's --format json, the serve API): numbers, strings,
 * and the one number printer that CSV and the serve API use as well.
 * Not a parser (metrics/http/json-path.h reads JSON).
 */
#ifndef DN_JSON_WRITE_H
#define DN_JSON_WRITE_H

#include <stddef.h>
#include <stdio.h>

/* Enough for any number dn_num_fmt writes, and its NUL. */
#define DN_NUM_MAX	32

/*
 * V in BUF (LEN bytes, at least DN_NUM_MAX) in the shortest of %.15g,
 * %.16g and %.17g that reads back (strtod) as exactly V: 0.1 is "0.1",
 * 0.1 + 0.2 is "0.30000000000000004", 1e300 is "1e+300".  So a value
 * written and read again is the same double, and a round value stays
 * short.  NaN and infinities as "nan", "inf", "-inf" (the callers write
 * what their format needs instead).  Returns BUF.
 */
const char	*dn_num_fmt(double v, char *buf, size_t len);
/* V as a CSV field (compare's and history's --format csv): dn_num_fmt's
 * text, so that a value reads the same in CSV as in JSON; NaN and
 * infinities as "nan", "inf", "-inf", as CSV has always said them. */
void		 dn_csv_num(FILE *out, double v);
/* V as a JSON number (dn_num_fmt); NaN and infinities (no value) as
 * null. */
void		 dn_json_num(FILE *out, double v);
/*
 * TEXT, sqlite's text of a REAL, as a JSON number: as it is when it
 * reads as a finite number ("Inf" and "-Inf", stored by a hand-made
 * file, are none: JSON has no infinities), else null.
 */
void		 dn_json_numtext(FILE *out, const char *text);
/* S as a JSON string with the escapes RFC 8259 requires. */
void		 dn_json_str(FILE *out, const char *s);
/* As dn_json_str; NULL as null. */
void		 dn_json_optstr(FILE *out, const char *s);

#endif
