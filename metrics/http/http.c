/*
 * http.c: devnet's only caller of libcurl (http.h says what each function
 * does).  libcurl is initialised once per process (pthread_once) and
 * never torn down: both users live as long as their process.
 *
 * Not here: request templates and status rules (loadgen-http.c), the
 * Prometheus text format (prom.c).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "http.h"
#include "buf.h"
#include "xalloc.h"

#define BODY_MAX_DEFAULT	((size_t)64 << 20)
#define GET_BUFFER_SIZE		(256L * 1024)

/*
 * The easy handle lives in a private multi handle even for blocking GETs:
 * one connection cache for both, so a scrape started with
 * dn_http_get_start and a ready check through dn_http_get share the
 * kept connection.
 */
struct dn_http {
	CURL		*easy;
	CURLM		*multi;
	int		 busy;		/* easy is added to multi */
	char		*url;		/* of the GET in flight, for causes */
	char		 err[CURL_ERROR_SIZE];
};

/* One request of a multi handle; easy handles are kept for reuse. */
struct xfer {
	CURL		*easy;
	uint64_t	 tag;
	char		*body;		/* ours, for POSTFIELDS */
	char		 err[CURL_ERROR_SIZE];
	struct xfer	*next;		/* free list, or in flight */
	struct xfer	*prev;		/* in flight */
};

struct dn_http_multi {
	CURLM			*multi;
	struct curl_slist	*headers;
	long			 timeout_ms;
	struct xfer		*free_list;
	struct xfer		*active;	/* in flight, doubly linked */
	size_t			 inflight;
};

static pthread_once_t	global_once = PTHREAD_ONCE_INIT;
static CURLcode		global_rc;

static void
global_init(void)
{
	global_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

static int
init_once(char **cause)
{
	pthread_once(&global_once, global_init);
	if (global_rc != CURLE_OK) {
		*cause = dn_xasprintf("cannot initialise libcurl: %s",
		    curl_easy_strerror(global_rc));
		return (-1);
	}
	return (0);
}

void
dn_http_buf_free(struct dn_http_buf *buf)
{
	free(buf->data);
	memset(buf, 0, sizeof(*buf));
}

/* Body sink into a struct dn_http_buf; a short count fails the transfer
 * once the body passes the buffer's limit. */
static size_t
to_buf(char *ptr, size_t size, size_t nmemb, void *arg)
{
	struct dn_http_buf	*b = arg;
	size_t			 n = size * nmemb;
	size_t			 max = b->max ? b->max : BODY_MAX_DEFAULT;

	if (n > max || b->len > max - n)
		return (0);
	b->data = dn_xgrow(b->data, &b->cap, b->len + n + 1, 1);
	memcpy(b->data + b->len, ptr, n);
	b->len += n;
	b->data[b->len] = '\0';
	return (n);
}

/* Body sink for requests whose answer only matters by its status. */
static size_t
discard(char *ptr, size_t size, size_t nmemb, void *arg)
{
	(void)ptr;
	(void)arg;
	return (size * nmemb);
}

int
dn_http_open(struct dn_http **hp, char **cause)
{
	struct dn_http	*h;

	if (init_once(cause) != 0)
		return (-1);
	h = dn_xcalloc(1, sizeof(*h));
	if ((h->easy = curl_easy_init()) == NULL ||
	    (h->multi = curl_multi_init()) == NULL) {
		*cause = dn_xstrdup("cannot create a libcurl handle");
		dn_http_close(h);
		return (-1);
	}
	*hp = h;
	return (0);
}

void
dn_http_close(struct dn_http *h)
{
	if (h == NULL)
		return;
	dn_http_get_abort(h);
	if (h->multi != NULL)
		curl_multi_cleanup(h->multi);
	if (h->easy != NULL)
		curl_easy_cleanup(h->easy);
	free(h);
}

int
dn_http_get_start(struct dn_http *h, const char *url, int timeout_ms,
    struct dn_http_buf *body, char **cause)
{
	CURLMcode	mc;
	int		running;

	dn_http_get_abort(h);
	curl_easy_reset(h->easy);
	curl_easy_setopt(h->easy, CURLOPT_URL, url);
	curl_easy_setopt(h->easy, CURLOPT_TIMEOUT_MS, (long)timeout_ms);
	curl_easy_setopt(h->easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h->easy, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h->easy, CURLOPT_ERRORBUFFER, h->err);
	/* Room for a whole 150 kB /metrics page per read, once it sits in
	 * the socket (docs/benchmarks.md, probe cost). */
	curl_easy_setopt(h->easy, CURLOPT_BUFFERSIZE, GET_BUFFER_SIZE);
	h->err[0] = '\0';
	if (body != NULL) {
		body->len = 0;
		if (body->data != NULL)
			body->data[0] = '\0';
		curl_easy_setopt(h->easy, CURLOPT_WRITEFUNCTION, to_buf);
		curl_easy_setopt(h->easy, CURLOPT_WRITEDATA, body);
	} else
		curl_easy_setopt(h->easy, CURLOPT_WRITEFUNCTION, discard);
	if ((mc = curl_multi_add_handle(h->multi, h->easy)) != CURLM_OK) {
		*cause = dn_xasprintf("%s: %s", url, curl_multi_strerror(mc));
		return (-1);
	}
	h->busy = 1;
	h->url = dn_xstrdup(url);
	/* Sends the request on a kept connection (or starts connecting). */
	(void)curl_multi_perform(h->multi, &running);
	return (0);
}

int
dn_http_get_poll(struct dn_http *h, int wait_ms, long *status,
    char **cause)
{
	CURLMsg		*msg;
	CURLcode	 rc = CURLE_OK;
	int		 running, left, done = 0;

	if (!h->busy) {
		*cause = dn_xstrdup("no request in flight");
		return (-1);
	}
	if (wait_ms > 0)
		(void)curl_multi_poll(h->multi, NULL, 0, wait_ms, NULL);
	(void)curl_multi_perform(h->multi, &running);
	while ((msg = curl_multi_info_read(h->multi, &left)) != NULL) {
		if (msg->msg == CURLMSG_DONE && msg->easy_handle == h->easy) {
			rc = msg->data.result;
			done = 1;
		}
	}
	if (!done)
		return (1);
	curl_multi_remove_handle(h->multi, h->easy);
	h->busy = 0;
	if (rc != CURLE_OK) {
		*cause = dn_xasprintf("%s: %s", h->url, h->err[0] != '\0' ?
		    h->err : curl_easy_strerror(rc));
		free(h->url);
		h->url = NULL;
		return (-1);
	}
	free(h->url);
	h->url = NULL;
	curl_easy_getinfo(h->easy, CURLINFO_RESPONSE_CODE, status);
	return (0);
}

void
dn_http_get_abort(struct dn_http *h)
{
	if (!h->busy)
		return;
	curl_multi_remove_handle(h->multi, h->easy);
	h->busy = 0;
	free(h->url);
	h->url = NULL;
}

int
dn_http_get(struct dn_http *h, const char *url, int timeout_ms,
    long *status, struct dn_http_buf *body, char **cause)
{
	int	rv;

	if (dn_http_get_start(h, url, timeout_ms, body, cause) != 0)
		return (-1);
	/* libcurl ends the wait early at its own timeout (TIMEOUT_MS). */
	while ((rv = dn_http_get_poll(h, 1000, status, cause)) == 1)
		;
	return (rv);
}

/* --- multi ----------------------------------------------------------- */

int
dn_http_multi_open(struct dn_http_multi **mp, const char *const *headers,
    int timeout_ms, int max_conns, char **cause)
{
	struct dn_http_multi	*m;
	size_t			 i;

	if (init_once(cause) != 0)
		return (-1);
	m = dn_xcalloc(1, sizeof(*m));
	if ((m->multi = curl_multi_init()) == NULL) {
		*cause = dn_xstrdup("cannot create a libcurl multi handle");
		free(m);
		return (-1);
	}
	for (i = 0; headers != NULL && headers[i] != NULL; i++) {
		struct curl_slist	*s;

		if ((s = curl_slist_append(m->headers, headers[i])) == NULL) {
			*cause = dn_xstrdup("out of memory for headers");
			dn_http_multi_close(m);
			return (-1);
		}
		m->headers = s;
	}
	m->timeout_ms = timeout_ms;
	if (max_conns > 0)
		curl_multi_setopt(m->multi, CURLMOPT_MAX_HOST_CONNECTIONS,
		    (long)max_conns);
	*mp = m;
	return (0);
}

static void
xfer_free(struct xfer *x)
{
	curl_easy_cleanup(x->easy);
	free(x->body);
	free(x);
}

void
dn_http_multi_close(struct dn_http_multi *m)
{
	struct xfer	*x;

	if (m == NULL)
		return;
	/* Transfers still in flight: detach and free them. */
	while ((x = m->active) != NULL) {
		m->active = x->next;
		curl_multi_remove_handle(m->multi, x->easy);
		xfer_free(x);
	}
	while ((x = m->free_list) != NULL) {
		m->free_list = x->next;
		xfer_free(x);
	}
	if (m->multi != NULL)
		curl_multi_cleanup(m->multi);
	curl_slist_free_all(m->headers);
	free(m);
}

int
dn_http_multi_add(struct dn_http_multi *m, const struct dn_http_req *r,
    char **cause)
{
	struct xfer	*x;
	CURL		*e;
	CURLMcode	 mc;

	if ((x = m->free_list) != NULL) {
		m->free_list = x->next;
		curl_easy_reset(x->easy);
	} else {
		x = dn_xcalloc(1, sizeof(*x));
		if ((x->easy = curl_easy_init()) == NULL) {
			free(x);
			*cause = dn_xstrdup("cannot create a libcurl handle");
			return (-1);
		}
	}
	e = x->easy;
	x->tag = r->tag;
	x->err[0] = '\0';
	free(x->body);
	x->body = NULL;
	curl_easy_setopt(e, CURLOPT_URL, r->url);
	curl_easy_setopt(e, CURLOPT_PRIVATE, (char *)x);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, x->err);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, discard);
	if (m->timeout_ms > 0)
		curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, m->timeout_ms);
	if (m->headers != NULL)
		curl_easy_setopt(e, CURLOPT_HTTPHEADER, m->headers);
	if (r->body != NULL) {
		x->body = dn_xmalloc(r->body_len + 1);
		memcpy(x->body, r->body, r->body_len);
		x->body[r->body_len] = '\0';
		curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
		    (curl_off_t)r->body_len);
		curl_easy_setopt(e, CURLOPT_POSTFIELDS, x->body);
	}
	if (r->method != NULL && strcmp(r->method, "GET") != 0 &&
	    !(strcmp(r->method, "POST") == 0 && r->body != NULL))
		curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, r->method);
	if ((mc = curl_multi_add_handle(m->multi, e)) != CURLM_OK) {
		*cause = dn_xasprintf("%s: %s", r->url,
		    curl_multi_strerror(mc));
		x->next = m->free_list;
		m->free_list = x;
		return (-1);
	}
	x->prev = NULL;
	x->next = m->active;
	if (m->active != NULL)
		m->active->prev = x;
	m->active = x;
	m->inflight++;
	return (0);
}

/* Report and recycle every transfer that ended. */
static void
collect(struct dn_http_multi *m,
    void (*done)(void *, const struct dn_http_done *), void *arg)
{
	CURLMsg	*msg;
	int	 left;

	while ((msg = curl_multi_info_read(m->multi, &left)) != NULL) {
		struct dn_http_done	 d = { 0 };
		struct xfer		*x = NULL;

		if (msg->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE,
		    (char **)&x);
		d.tag = x->tag;
		if (msg->data.result == CURLE_OK)
			curl_easy_getinfo(msg->easy_handle,
			    CURLINFO_RESPONSE_CODE, &d.status);
		else
			d.error = x->err[0] != '\0' ? x->err :
			    curl_easy_strerror(msg->data.result);
		curl_multi_remove_handle(m->multi, msg->easy_handle);
		if (x->prev != NULL)
			x->prev->next = x->next;
		else
			m->active = x->next;
		if (x->next != NULL)
			x->next->prev = x->prev;
		m->inflight--;
		if (done != NULL)
			done(arg, &d);
		free(x->body);
		x->body = NULL;
		x->next = m->free_list;
		m->free_list = x;
	}
}

size_t
dn_http_multi_run(struct dn_http_multi *m, int wait_ms,
    void (*done)(void *, const struct dn_http_done *), void *arg)
{
	int	running = 0;

	curl_multi_perform(m->multi, &running);
	collect(m, done, arg);
	if (wait_ms > 0 && m->inflight > 0) {
		(void)curl_multi_poll(m->multi, NULL, 0, wait_ms, NULL);
		curl_multi_perform(m->multi, &running);
		collect(m, done, arg);
	}
	return (m->inflight);
}

size_t
dn_http_multi_inflight(const struct dn_http_multi *m)
{
	return (m->inflight);
}
