/*
 * serve-internal.h: what the files of the server share (server.c routes
 * and answers; prom.c /metrics; api.c /api/...; page.c the live page and
 * its charts; browse.c stored runs).  Each handler writes its body on a
 * memory stream and says its status and type; nothing here writes.
 */
#ifndef DN_SERVE_INTERNAL_H
#define DN_SERVE_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "metric-table.h"

struct snapshot;
struct dn_store;
struct MHD_Connection;

struct serve {
	struct MHD_Daemon	*d;
	struct snapshot		*snap;
	char			*db;
	struct dn_store		*store;	/* read-only, opened when asked */
	char			 url[340];
	/* the live verdict, redone when another trial ended */
	int			 verdict_ended;
	char			*verdict_json;
};

/* One answer: the handler fills status, type and writes on body. */
struct reply {
	int		 status;
	const char	*type;
	FILE		*body;
};

/* --- reply.c: what every handler uses -------------------------------- */

/* A query argument of the request, or NULL. */
const char *serve_arg(struct MHD_Connection *c, const char *name);
/* The database, opened read-only on first use; NULL (and a 503 reply)
 * when there is none or it cannot be opened. */
struct dn_store *serve_store(struct serve *s, struct reply *r);
/* A plain-text error reply. */
void	 serve_error(struct reply *r, int status, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));

/* V as the shortest text that reads back as V exactly, into BUF. */
const char *serve_num(double v, char *buf, size_t len);

/* --- prom.c --------------------------------------------------------- */

/* /metrics; OPENMETRICS: the OpenMetrics text, else 0.0.4. */
void	 serve_metrics(struct serve *s, int openmetrics, struct reply *r);

/* --- api.c ---------------------------------------------------------- */

void	 serve_api_live(struct serve *s, struct reply *r);
void	 serve_api_series(struct serve *s, struct MHD_Connection *c,
	    struct reply *r);
void	 serve_api_verdict(struct serve *s, struct MHD_Connection *c,
	    struct reply *r);
void	 serve_api_runs(struct serve *s, struct reply *r);

/* --- page.c --------------------------------------------------------- */

/* The live page (/) and one of its charts (/chart.svg?metric=NAME). */
void	 serve_page_live(struct serve *s, struct reply *r);
void	 serve_chart(struct serve *s, struct MHD_Connection *c,
	    struct reply *r);

/* --- browse.c ------------------------------------------------------- */

/* Stored runs (/ without a run, /runs) and the report of two sides
 * (/report?a=A&b=B). */
void	 serve_browse_index(struct serve *s, struct reply *r);
void	 serve_browse_report(struct serve *s, struct MHD_Connection *c,
	    struct reply *r);

#endif
