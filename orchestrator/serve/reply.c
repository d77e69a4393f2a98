/*
 * reply.c: what every handler of the server uses (serve-internal.h): a
 * query argument, an error reply, the read-only database, numbers as
 * text.  Called by the handlers, never calling them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <microhttpd.h>

#include "serve/serve-internal.h"
#include "store.h"

const char *
serve_arg(struct MHD_Connection *c, const char *name)
{
	return (MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, name));
}

void
serve_error(struct reply *r, int status, const char *fmt, ...)
{
	va_list	ap;

	r->status = status;
	r->type = "text/plain; charset=utf-8";
	va_start(ap, fmt);
	vfprintf(r->body, fmt, ap);
	va_end(ap);
	fputc('\n', r->body);
}

struct dn_store *
serve_store(struct serve *s, struct reply *r)
{
	char	*cause = NULL;

	if (s->store == NULL && s->db != NULL &&
	    dn_store_open(&s->store, s->db, DN_STORE_RDONLY, &cause) != 0) {
		serve_error(r, 503, "database: %s", cause);
		free(cause);
		s->store = NULL;
		return (NULL);
	}
	if (s->store == NULL)
		serve_error(r, 404, "no database");
	return (s->store);
}

const char *
serve_num(double v, char *buf, size_t len)
{
	/* the shortest of %.15g and %.17g that reads back as V */
	snprintf(buf, len, "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, len, "%.17g", v);
	return (buf);
}

