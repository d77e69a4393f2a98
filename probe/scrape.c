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
 * Not here: HTTP (http.c), the text format (prom.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "probe.h"
#include "prom.h"
#include "xalloc.h"

#define PAGE_MAX	((size_t)16 << 20)

struct scrape {
	const struct probe_opts	*o;
	struct dn_http		*http;
	struct dn_http_buf	 page;
	struct dn_prom_want	*want;
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

	(void)cause;
	s = dn_xcalloc(1, sizeof(*s));
	s->o = o;
	s->http = http;
	s->page.max = PAGE_MAX;
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
	char	*cause = NULL;

	s->count++;
	if (dn_http_get_start(s->http, s->o->prom_url, timeout_ms, &s->page,
	    &cause) != 0) {
		failed(s, cause);
		free(cause);
		return (-1);
	}
	return (0);
}

int
scrape_step(struct scrape *s, int wait_ms, double *values,
    uint64_t *present, struct dn_named *named, size_t *nn, size_t cap)
{
	const struct probe_opts	*o = s->o;
	char			*cause = NULL, why[160];
	long			 status = 0;
	size_t			 i;
	int			 rv;

	if ((rv = dn_http_get_poll(s->http, wait_ms, &status, &cause)) == 1)
		return (1);
	if (rv != 0) {
		failed(s, cause);
		free(cause);
		return (-1);
	}
	if (status < 200 || status > 299) {
		snprintf(why, sizeof(why), "%s: status %ld", o->prom_url,
		    status);
		failed(s, why);
		return (-1);
	}
	(void)dn_prom_sum(s->page.data != NULL ? s->page.data : "",
	    s->page.len, s->want, o->nprom, NULL);
	for (i = 0; i < o->nprom; i++) {
		const struct dn_prom_want	*w = &s->want[i];
		const struct probe_prom		*p = &o->prom[i];

		if (w->series == 0 || w->bad || !isfinite(w->sum))
			continue;
		if (p->table_id >= 0) {
			values[p->table_id] = w->sum;
			*present |= 1ull << p->table_id;
			continue;
		}
		if (*nn >= cap)
			continue;
		snprintf(named[*nn].name, sizeof(named[*nn].name), "%s",
		    p->devnet);
		named[*nn].kind = w->type == DN_PROM_COUNTER ?
		    DN_NAMED_COUNTER : DN_NAMED_GAUGE;
		named[*nn].value = w->sum;
		(*nn)++;
	}
	return (0);
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
