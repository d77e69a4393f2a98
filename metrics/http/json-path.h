/*
 * json-path.h: one number out of a JSON document by a path, read in place
 * without allocating (json-path.c).  What devnet-probe's JSON scrape
 * needs (docs/probe.md, "JSON"): a node whose numbers are served as JSON
 * only (etcd's /v2/stats/self, Go's expvar /debug/vars, a program's own
 * status page).
 *
 * A path is a chain of steps:
 *
 *   name         a member of an object ([A-Za-z0-9_$@-]+, not empty)
 *   .name        the same after another step
 *   [N]          element N (from 0) of an array
 *   ["key"]      a member whose name has other characters ('.', ' ');
 *                inside the quotes \" and \\ stand for " and \
 *
 * e.g. `a.b[0]`, `memstats.Mallocs`, `["rpc.calls"].total`.  The value
 * found must be a number (JSON's grammar, finite) or a boolean (true 1,
 * false 0); anything else is an error that says what it is.
 *
 * Not here: fetching the page (http.h), turning values into devnet
 * metrics (the probe's scrape.c).  Not a validator: only what the path
 * walks through is read, the rest is skipped by its brackets and quotes.
 */
#ifndef DN_JSON_PATH_H
#define DN_JSON_PATH_H

#include <stddef.h>

/* Check PATH's syntax.  Returns 0, or -1 with *ERR (static text). */
int	 dn_json_path_check(const char *path, const char **err);

/*
 * The value at PATH in the document DOC (LEN bytes) into *OUT.  Returns
 * 0, or -1 with ERR (ERRLEN bytes, NUL-terminated) saying why, in terms
 * a user can act on: "no member 'b' in the object at 'a'", "index 3 is
 * past the end of the array at 'a.b' (2 elements)", "'a.c' is a string,
 * not a number", "malformed JSON at byte 17".
 */
int	 dn_json_path_get(const char *doc, size_t len, const char *path,
	    double *out, char *err, size_t errlen);

#endif
