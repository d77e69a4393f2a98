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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "json-path.h"
#include "probe.h"
#include "prom.h"
#include "xalloc.h"

#define PAGE_MAX	((size_t)16 << 20)

/* One page's GETs, for DN-PROBE-UNMEASURED: how many, how many failed,
 * and the last failure ("status 404", "Connection refused"). */
struct page {
	const char	*what;		/* "Prometheus", "JSON" */
	uint64_t	 n, failed;
	char		 last[160];
	int		 logged;	/* its first failure said */
};

/* Why a metric of a page never had a value: the page's last failure
 * aside, the last thing wrong with the metric on a page that came. */
struct miss {
	int	 got;			/* it had a value once */
	char	 why[320];
};

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
	struct page		 pp, jp;	/* the two pages */
	struct miss		*pm, *jm;	/* per --prom-*, --json-map */
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
	s->pp.what = "Prometheus";
	s->jp.what = "JSON";
	s->pm = dn_xcalloc(o->nprom + 1, sizeof(*s->pm));
	s->jm = dn_xcalloc(o->njson + 1, sizeof(*s->jm));
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
	free(s->pm);
	free(s->jm);
	free(s);
}

/* A failed GET of page P at URL: counted, its first failure said, the
 * last one kept without the URL in front. */
static void
failed(struct scrape *s, struct page *p, const char *url, const char *why)
{
	size_t	ul = strlen(url);

	s->failures++;
	p->failed++;
	if (strncmp(why, url, ul) == 0 && strncmp(why + ul, ": ", 2) == 0)
		snprintf(p->last, sizeof(p->last), "%s", why + ul + 2);
	else
		snprintf(p->last, sizeof(p->last), "%s", why);
	if (!p->logged) {
		fprintf(stderr, "DN-PROBE-SCRAPE-ERROR %s (further failures "
		    "of the %s page only counted)\n", why, p->what);
		p->logged = 1;
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
		s->pp.n++;
		if (dn_http_get_start(s->http, o->prom_url, timeout_ms,
		    &s->page, &cause) != 0) {
			failed(s, &s->pp, o->prom_url, cause);
			free(cause);
			cause = NULL;
		} else
			any = s->prom_busy = 1;
	}
	if (o->json_url != NULL) {
		s->jp.n++;
		if (dn_http_get_start(s->jhttp, o->json_url, timeout_ms,
		    &s->jpage, &cause) != 0) {
			failed(s, &s->jp, o->json_url, cause);
			free(cause);
		} else
			any = s->json_busy = 1;
	}
	return (any ? 0 : -1);
}

/* Drive the GET of URL on H; 1 while in flight, else 0 and *OK. */
static int
poll_one(struct scrape *s, struct page *p, struct dn_http *h,
    const char *url, int wait_ms, int *ok)
{
	char	*cause = NULL, why[160];
	long	 status = 0;
	int	 rv;

	if ((rv = dn_http_get_poll(h, wait_ms, &status, &cause)) == 1)
		return (1);
	*ok = 0;
	if (rv != 0) {
		failed(s, p, url, cause);
		free(cause);
	} else if (status < 200 || status > 299) {
		snprintf(why, sizeof(why), "%s: status %ld", url, status);
		failed(s, p, url, why);
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

		if (w->series == 0 || w->bad || !isfinite(w->sum)) {
			snprintf(s->pm[i].why, sizeof(s->pm[i].why), "%s "
			    "'%s'", w->series == 0 ? "has no sample named" :
			    w->bad ? "has a malformed sample" : "has no "
			    "finite value of", p->expo);
			continue;
		}
		s->pm[i].got = 1;
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
			snprintf(s->jm[i].why, sizeof(s->jm[i].why), "at "
			    "path '%s': %s", j->path, err);
			continue;
		}
		s->jm[i].got = 1;
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
		s->prom_busy = poll_one(s, &s->pp, s->http, o->prom_url,
		    wait_ms, &s->prom_ok);
		if (s->prom_busy)
			wait_ms = 0;	/* the other one: what is there */
	}
	if (s->json_busy)
		s->json_busy = poll_one(s, &s->jp, s->jhttp, o->json_url,
		    wait_ms, &s->json_ok);
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

/* Why metric NAME of page P at URL never had a value (M: its own last
 * trouble on the pages that came). */
static void
say_miss(const struct page *p, const char *url, const char *name,
    const struct miss *m)
{
	unsigned long long	n = p->n, f = p->failed;

	if (m->got)
		return;
	if (n == 0)
		say("DN-PROBE-UNMEASURED", "%s: the %s page %s was never "
		    "scraped (a scrape is taken once the command is ready, "
		    "every Nth sample with --scrape-every)", name, p->what,
		    url);
	else if (f == n && strncmp(p->last, "status ", 7) == 0)
		say("DN-PROBE-UNMEASURED", "%s: the %s page %s answered %s "
		    "(%llu scrape%s, all failed)", name, p->what, url,
		    p->last, n, n == 1 ? "" : "s");
	else if (f == n)
		say("DN-PROBE-UNMEASURED", "%s: the %s page %s could not be "
		    "read: %s (%llu scrape%s, all failed)", name, p->what, url,
		    p->last, n, n == 1 ? "" : "s");
	else if (f == 0)
		say("DN-PROBE-UNMEASURED", "%s: the %s page %s %s (%llu "
		    "scrape%s, none failed)", name, p->what, url, m->why[0] !=
		    '\0' ? m->why : "gave no value", n, n == 1 ? "" : "s");
	else
		say("DN-PROBE-UNMEASURED", "%s: the %s page %s %s (%llu "
		    "scrape%s, %llu failed; the last: %s)", name, p->what, url,
		    m->why[0] != '\0' ? m->why : "gave no value", n,
		    n == 1 ? "" : "s", f, p->last);
}

/*
 * A name of the last page read (TEXT, LEN) that WANT likely meant, into
 * BUF ("" if none): WANT_total (a counter's samples carry the suffix its
 * TYPE line may not), else the shortest other WANT_..., else WANT
 * without a _total the page does not have.
 */
static void
near_name(const char *text, size_t len, const char *want, char *buf,
    size_t cap)
{
	struct dn_prom_sample	 smp;
	const char		*p = text, *end = text + len, *nl, *err;
	size_t			 lw = strlen(want), score, best = SIZE_MAX;

	buf[0] = '\0';
	for (; p != NULL && p < end; p = nl != NULL ? nl + 1 : NULL) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (dn_prom_parse_line(p, nl != NULL ? (size_t)(nl - p) :
		    (size_t)(end - p), &smp, &err) != 1)
			continue;
		if (smp.name_len == lw + 6 && memcmp(smp.name, want, lw) ==
		    0 && memcmp(smp.name + lw, "_total", 6) == 0)
			score = 0;
		else if (smp.name_len > lw && memcmp(smp.name, want, lw) ==
		    0 && smp.name[lw] == '_')
			score = smp.name_len;
		else if (lw > 6 && smp.name_len == lw - 6 && memcmp(smp.name,
		    want, lw - 6) == 0 && strcmp(want + lw - 6, "_total") == 0)
			score = SIZE_MAX - 1;
		else
			continue;
		if (score < best) {
			best = score;
			snprintf(buf, cap, "%.*s", (int)smp.name_len, smp.name);
		}
	}
}

void
scrape_say_unmeasured(const struct scrape *s)
{
	const struct probe_opts	*o = s->o;
	struct miss		 m;
	char			 near[128];
	size_t			 i;

	for (i = 0; i < o->nprom; i++) {
		if (o->prom[i].implied)
			continue;
		m = s->pm[i];
		if (!m.got && strncmp(m.why, "has no sample named", 19) ==
		    0 && s->page.data != NULL) {
			near_name(s->page.data, s->page.len, o->prom[i].expo,
			    near, sizeof(near));
			if (near[0] != '\0')
				snprintf(m.why + strlen(m.why), sizeof(m.why) -
				    strlen(m.why), " (did you mean '%s'?)",
				    near);
		}
		say_miss(&s->pp, o->prom_url, o->prom[i].devnet, &m);
	}
	for (i = 0; i < o->njson; i++)
		say_miss(&s->jp, o->json_url, o->json[i].name, &s->jm[i]);
}
