/*
 * scrape.c: the Prometheus scrape of devnet-probe (--prom-url, --prom-map,
 * --prom-keep; probe.h).  One GET per sample interval through metrics/
 * http (libcurl, one handle kept, so the connection stays open), the page
 * read with prom.h's dn_prom_sum into one value per wanted name.  The
 * event loop (loop.c) starts the GET and reads the answer a little later
 * (scrape_start, scrape_step), so that the page is read whole instead of
 * one wake-up per write of the server.
 *
 * Rules (docs/probe.md):
 *   - A name with several label sets (a counter per method, per code)
 *     is the sum of all its lines: devnet keeps one number per name.
 *   - A scrape that fails (no answer, a status other than 2xx) leaves
 *     every scraped metric out of that sample; a wanted name missing from
 *     the page, malformed, or not finite (NaN, +Inf) leaves that metric
 *     out.  Never 0.  Each failed scrape is counted
 *     (probe_scrape_failures, a NAMED counter, and DN-PROBE-EXIT).
 *   - A --prom-keep name is sent as a counter when its TYPE says counter,
 *     else as a gauge; a --prom-map to a table metric takes the table's
 *     kind.
 *
 *
 * With --json-url the same scrape also GETs the node's JSON page, on a
 * second handle at the same moment (so the every-Nth choice, the
 * timeout and the count of scrapes and failures are the Prometheus
 * page's), and reads each --json-map PATH from it with json-path.h.  A
 * path that is missing, or a value that is not a number or a boolean,
 * leaves that metric out and is said once per metric
 * (DN-PROBE-JSON-ERROR), not once per sample.  --counter names are sent
 * as counters.
 *
 * Not here: HTTP (http.c), the text format (prom.c), JSON paths
 * (json-path.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "json-path.h"
#include "probe.h"
#include "prom.h"
#include "xalloc.h"

#define PAGE_MAX	((size_t)16 << 20)

struct scrape {
	const struct probe_opts	*o;
	struct dn_http		*http;
	struct dn_http_buf	 page;
	struct dn_prom_want	*want;
	int			 prom_busy;	/* its GET in flight */
	int			 prom_ok;	/* and it answered 2xx */
	struct dn_http		*jhttp;		/* --json-url's handle */
	struct dn_http_buf	 jpage;
	int			 json_busy, json_ok;
	uint64_t		 failures;
	uint64_t		 count;
	int			 logged;	/* first failure said */
};

int
scrape_open(struct scrape **sp, const struct probe_opts *o,
    struct dn_http *http, char **cause)
{
	struct scrape	*s;
	size_t		 i;

	s = dn_xcalloc(1, sizeof(*s));
	s->o = o;
	s->http = http;
	s->page.max = PAGE_MAX;
	s->jpage.max = PAGE_MAX;
	if (o->json_url != NULL && dn_http_open(&s->jhttp, cause) != 0) {
		free(s);
		return (-1);
	}
	s->want = dn_xcalloc(o->nprom ? o->nprom : 1, sizeof(*s->want));
	for (i = 0; i < o->nprom; i++)
		s->want[i].name = o->prom[i].expo;
	*sp = s;
	return (0);
}

void
scrape_close(struct scrape *s)
{
	if (s == NULL)
		return;
	dn_http_buf_free(&s->page);
	dn_http_buf_free(&s->jpage);
	dn_http_close(s->jhttp);
	free(s->want);
	free(s);
}

static void
failed(struct scrape *s, const char *why)
{
	s->failures++;
	if (!s->logged) {
		fprintf(stderr, "DN-PROBE-SCRAPE-ERROR %s (further failures "
		    "only counted)\n", why);
		s->logged = 1;
	}
}

int
scrape_start(struct scrape *s, int timeout_ms)
{
	const struct probe_opts	*o = s->o;
	char			*cause = NULL;
	int			 any = 0;

	s->count++;
	s->prom_ok = s->json_ok = 0;
	if (o->prom_url != NULL) {
		if (dn_http_get_start(s->http, o->prom_url, timeout_ms,
		    &s->page, &cause) != 0) {
			failed(s, cause);
			free(cause);
			cause = NULL;
		} else
			any = s->prom_busy = 1;
	}
	if (o->json_url != NULL) {
		if (dn_http_get_start(s->jhttp, o->json_url, timeout_ms,
		    &s->jpage, &cause) != 0) {
			failed(s, cause);
			free(cause);
		} else
			any = s->json_busy = 1;
	}
	return (any ? 0 : -1);
}

/* Drive the GET of URL on H; 1 while in flight, else 0 and *OK. */
static int
poll_one(struct scrape *s, struct dn_http *h, const char *url, int wait_ms,
    int *ok)
{
	char	*cause = NULL, why[160];
	long	 status = 0;
	int	 rv;

	if ((rv = dn_http_get_poll(h, wait_ms, &status, &cause)) == 1)
		return (1);
	*ok = 0;
	if (rv != 0) {
		failed(s, cause);
		free(cause);
	} else if (status < 200 || status > 299) {
		snprintf(why, sizeof(why), "%s: status %ld", url, status);
		failed(s, why);
	} else
		*ok = 1;
	return (0);
}

/* Put value V of table metric ID or of named metric NAME (a counter when
 * COUNTER) into the outputs. */
static void
put(double v, int id, const char *name, int counter, double *values,
    uint64_t *present, struct dn_named *named, size_t *nn, size_t cap)
{
	if (id >= 0) {
		values[id] = v;
		*present |= 1ull << id;
		return;
	}
	if (*nn >= cap)
		return;
	snprintf(named[*nn].name, sizeof(named[*nn].name), "%s", name);
	named[*nn].kind = counter ? DN_NAMED_COUNTER : DN_NAMED_GAUGE;
	named[*nn].value = v;
	(*nn)++;
}

static void
read_prom(struct scrape *s, double *values, uint64_t *present,
    struct dn_named *named, size_t *nn, size_t cap)
{
	const struct probe_opts	*o = s->o;
	size_t			 i;

	(void)dn_prom_sum(s->page.data != NULL ? s->page.data : "",
	    s->page.len, s->want, o->nprom, NULL);
	for (i = 0; i < o->nprom; i++) {
		const struct dn_prom_want	*w = &s->want[i];
		const struct probe_prom		*p = &o->prom[i];

		if (w->series == 0 || w->bad || !isfinite(w->sum))
			continue;
		put(w->sum, p->table_id, p->devnet, w->type ==
		    DN_PROM_COUNTER, values, present, named, nn, cap);
	}
}

static void
read_json(struct scrape *s, double *values, uint64_t *present,
    struct dn_named *named, size_t *nn, size_t cap)
{
	const struct probe_opts	*o = s->o;
	char			 err[256];
	double			 v;
	size_t			 i;

	for (i = 0; i < o->njson; i++) {
		struct probe_json	*j = &o->json[i];

		if (dn_json_path_get(s->jpage.data != NULL ? s->jpage.data :
		    "", s->jpage.len, j->path, &v, err, sizeof(err)) != 0) {
			if (!j->said)
				fprintf(stderr, "DN-PROBE-JSON-ERROR %s: %s: %s "
				    "(the metric is absent while this lasts; "
				    "said once)\n", j->name, o->json_url, err);
			j->said = 1;
			continue;
		}
		put(v, j->table_id, j->name, j->counter, values, present,
		    named, nn, cap);
	}
}

int
scrape_step(struct scrape *s, int wait_ms, double *values,
    uint64_t *present, struct dn_named *named, size_t *nn, size_t cap)
{
	const struct probe_opts	*o = s->o;

	if (s->prom_busy) {
		s->prom_busy = poll_one(s, s->http, o->prom_url, wait_ms,
		    &s->prom_ok);
		if (s->prom_busy)
			wait_ms = 0;	/* the other one: what is there */
	}
	if (s->json_busy)
		s->json_busy = poll_one(s, s->jhttp, o->json_url, wait_ms,
		    &s->json_ok);
	if (s->prom_busy || s->json_busy)
		return (1);
	if (s->prom_ok)
		read_prom(s, values, present, named, nn, cap);
	if (s->json_ok)
		read_json(s, values, present, named, nn, cap);
	return (s->prom_ok || s->json_ok ? 0 : -1);
}

int
scrape_run(struct scrape *s, int timeout_ms, double *values,
    uint64_t *present, struct dn_named *named, size_t *nn, size_t cap)
{
	int	rv;

	if (scrape_start(s, timeout_ms) != 0)
		return (-1);
	/* libcurl cuts the wait short at its own timeout */
	while ((rv = scrape_step(s, 1000, values, present, named, nn,
	    cap)) == 1)
		;
	return (rv);
}

uint64_t
scrape_failures(const struct scrape *s)
{
	return (s->failures);
}

uint64_t
scrape_count(const struct scrape *s)
{
	return (s->count);
}
