/*
 * fuzz-http.c: libFuzzer harness for what the server decides about a
 * request before any handler runs (orchestrator/serve/request.c): the
 * method, the Host, the raw URI taken apart into a path and arguments,
 * the route, the sides of /report.  The input is "METHOD\nURI\nHOST" (a
 * missing line: GET, "/", no Host); the server it asks is listening on
 * 127.0.0.1, or on every address when the method line ends in '*'.
 * Checks the contract: a refusal has a status and a reason; an answer's
 * path starts with '/' and holds no NUL before its end; every argument
 * found by name is one of those parsed.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "serve/serve-internal.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t	sink;

static char *
line(const char **p, const char *end)
{
	const char	*nl = memchr(*p, '\n', (size_t)(end - *p));
	const char	*e = nl != NULL ? nl : end;
	char		*s;

	s = malloc((size_t)(e - *p) + 1);
	memcpy(s, *p, (size_t)(e - *p));
	s[e - *p] = '\0';
	*p = nl != NULL ? nl + 1 : end;
	return (s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "a", "b", "run", "metric", "" };
	const char		*p = (const char *)data, *end = p + size;
	const char		*why = NULL, *a, *b, *v;
	struct serve_hosts	 h;
	struct serve_req	 r;
	char			*method, *uri, *host;
	size_t			 n;
	int			 st, i, k;

	method = line(&p, end);
	uri = p < end ? line(&p, end) : strdup("/");
	host = p < end ? line(&p, end) : NULL;
	memset(&h, 0, sizeof(h));
	memcpy(h.names[0], "127.0.0.1", sizeof("127.0.0.1"));
	n = strlen(method);
	if (n > 0 && method[n - 1] == '*') {
		method[n - 1] = '\0';
		h.any_addr = 1;
		memcpy(h.names[0], "0.0.0.0", sizeof("0.0.0.0"));
		memcpy(h.names[1], "devnet-host", sizeof("devnet-host"));
	}
	st = serve_req_parse(&r, method, uri, host, &h, &why);
	if (st != 0) {
		if (why == NULL || (st != 400 && st != 405 && st != 414 &&
		    st != 421))
			abort();
		goto out;
	}
	if (r.path == NULL || r.path[0] != '/' || r.nargs < 0 ||
	    r.nargs > SERVE_ARGS_MAX)
		abort();
	sink += strlen(r.path) + (size_t)serve_route_find(r.path) + 1;
	for (k = 0; k < r.nargs; k++)
		sink += strlen(r.keys[k]) + strlen(r.vals[k]);
	for (i = 0; names[i] != NULL && names[i][0] != '\0'; i++) {
		if ((v = serve_req_arg(&r, names[i])) == NULL)
			continue;
		for (k = 0; k < r.nargs && r.vals[k] != v; k++)
			continue;
		if (k == r.nargs)
			abort();
	}
	if (serve_req_sides(&r, &a, &b, &why) == 0)
		sink += strlen(a) + strlen(b);
	else if (why == NULL)
		abort();
	serve_req_release(&r);
out:
	free(method);
	free(uri);
	free(host);
	return (0);
}
