/*
 * loadgen-http.c: the http workload (workload.kind: http): constant-rate,
 * open-loop HTTP requests to the nodes through libcurl's multi interface
 * (metrics/http, dn_http_multi), on the load generator's own thread.
 *
 * Request k has an intended send time from t=0 and the rate alone, as in
 * loadgen.c; it goes to the next node that is up (round-robin), with its
 * method, URL and body expanded from the templates (load-tmpl.h: {index},
 * {port}, {seq}, {key}, {key_b64}, {value_b64}, ...).  Nothing waits for
 * an answer before the next request goes out: up to max_inflight requests
 * are in flight (beyond that a request is a send error, never delayed).
 *
 * Accounting, in the existing names: tx_submitted = requests scheduled;
 * tx_send_errors = not handed to libcurl (no node up, too many in
 * flight); tx_included = answers with a status in expect_status;
 * tx_failed = other statuses, timeouts, refused connections;
 * tx_latency_* = answer time minus the INTENDED send time (so a slow
 * server or a late generator shows, coordinated-omission free);
 * send_lag = actual minus intended hand-over to libcurl.  The first
 * failure of each kind is recorded as an http_error event.
 *
 * When the schedule ends or the runner halts the generator, no more
 * requests go out and those in flight get up to workload.timeout to
 * answer; the rest stay pending.
 *
 * Under network conditions (issue 20) the thread moves itself into the
 * trial's load namespace (trial_load_ns) before its first request: every
 * connection it opens reaches the nodes' own addresses ({addr}) through
 * the hub, where the conditions are, and nothing of it is in the host's
 * namespace.  Its connections are closed when the thread ends, so that
 * the namespace goes with the trial's network.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "http.h"
#include "net/topo.h"
#include "scenario/template.h"
#include "trial/loadgen-internal.h"
#include "trial/pacing.h"
#include "clock.h"
#include "rng.h"
#include "buf.h"
#include "xalloc.h"

#define MAX_CONNS_PER_HOST	64
#define WAKE_MAX_NS		50000000u	/* see a stop within 50 ms */

struct lg_http {
	struct dn_http_multi	*m;
	struct load_tmpl	 url, body;
	int			 has_body;
	struct dn_buf		 ub, bb;	/* expanded URL and body */
	uint8_t			*value;		/* {value_b64} source */

	/* what the expansion of the current request uses */
	int			 node;
	uint64_t		 seq;
	uint32_t		 key;
	int			 have_key, have_value;

	int			 said_status, said_error;
};

/* Placeholder values of the request being built. */
static void
fill(void *arg, const struct load_part *pt, struct dn_buf *b)
{
	struct loadgen	*l = arg;
	struct lg_http	*h = l->http;
	char		 num[32], key[24];
	int		 n = 0;

	switch (pt->ph) {
	case LPH_INDEX:
		n = snprintf(num, sizeof(num), "%d", h->node);
		break;
	case LPH_NODES:
		n = snprintf(num, sizeof(num), "%d", l->t->nnodes);
		break;
	case LPH_PORT:
		n = snprintf(num, sizeof(num), "%ld",
		    (long)l->t->nodes[h->node].port + pt->off);
		break;
	case LPH_ADDR: {	/* its namespace's, or where its host is */
		const char *a = trial_node_addr(l->t, h->node, num,
		    sizeof(num));

		dn_buf_add(b, a, strlen(a));
		return;
	}
	case LPH_SEQ:
		n = snprintf(num, sizeof(num), "%llu",
		    (unsigned long long)h->seq);
		break;
	case LPH_KEY:
	case LPH_KEY_B64:
		if (!h->have_key) {
			h->key = pacing_pick(l);
			h->have_key = 1;
		}
		n = snprintf(key, sizeof(key), "key-%08u", h->key);
		if (pt->ph == LPH_KEY_B64) {
			load_base64(b, (const uint8_t *)key, (size_t)n);
			return;
		}
		dn_buf_add(b, key, (size_t)n);
		return;
	case LPH_VALUE_B64:
		if (!h->have_value) {
			uint32_t	i;

			for (i = 0; i < l->t->scn->workload.value_size; i++)
				h->value[i] = (uint8_t)('a' +
				    dn_rand64(&l->rng) % 26);
			h->have_value = 1;
		}
		load_base64(b, h->value, l->t->scn->workload.value_size);
		return;
	default:
		return;
	}
	if (n > 0)
		dn_buf_add(b, num, (size_t)n);
}

int
loadgen_http_create(struct loadgen *l, char **cause)
{
	const struct scenario	*scn = l->t->scn;
	struct lg_http		*h;
	const char *const	*headers = (const char *const *)
				    scn->workload.headers;
	int			 k;

	h = dn_xcalloc(1, sizeof(*h));
	l->http = h;
	l->rng = scn->seed ^ 0x68747470ull ^ (uint64_t)l->t->pt.index;
	l->accounts = scn->workload.key_space ? scn->workload.key_space : 1;
	if (scn->workload.dist == SCN_DIST_ZIPF)
		l->zipf_cdf = pacing_zipf_cdf(l->accounts,
		    scn->workload.zipf_s);
	h->value = dn_xmalloc(scn->workload.value_size + 1);
	load_tmpl_compile(&h->url, scn->workload.url, LOAD_TMPL_HTTP);
	if (scn->workload.body != NULL) {
		load_tmpl_compile(&h->body, scn->workload.body,
		    LOAD_TMPL_HTTP);
		h->has_body = 1;
	}
	if (load_tmpl_uses(&h->url, LPH_PORT) ||
	    load_tmpl_uses(&h->body, LPH_PORT)) {
		for (k = 0; k < l->t->nnodes; k++) {
			if (l->t->nodes[k].port <= 0) {
				*cause = dn_xasprintf("workload.url or body "
				    "uses {port}, but node %d has no port "
				    "(devnet-node needs network.listen: "
				    "tcp; foreign nodes node.port_base)", k);
				return (-1);
			}
		}
	}
	return (dn_http_multi_open(&h->m, headers,
	    (int)scn->workload.timeout_ms, MAX_CONNS_PER_HOST, cause));
}

void
loadgen_http_free(struct loadgen *l)
{
	struct lg_http	*h = l->http;

	if (h == NULL)
		return;
	dn_http_multi_close(h->m);
	load_tmpl_free(&h->url);
	load_tmpl_free(&h->body);
	free(h->ub.p);
	free(h->bb.p);
	free(h->value);
	free(h);
	l->http = NULL;
}

/* One answer (or none): count it, and its latency from the intended
 * send time carried in the tag. */
static void
on_done(void *arg, const struct dn_http_done *d)
{
	struct loadgen		*l = arg;
	struct lg_http		*h = l->http;
	struct trial		*t = l->t;
	const struct scenario	*scn = t->scn;
	struct trial_load	*ld = &l->load;
	uint64_t		 now = dn_now_ns();
	size_t			 i;
	int			 ok = 0;

	for (i = 0; d->error == NULL && i < scn->workload.nexpect_status;
	    i++) {
		if (d->status == scn->workload.expect_status[i])
			ok = 1;
	}
	pthread_mutex_lock(&t->mu);
	if (ok)
		t->tx_included++;
	else
		t->tx_failed++;
	pthread_mutex_unlock(&t->mu);
	if (ok)
		trial_load_add_lat(ld, now > d->tag ? (double)(now - d->tag) /
		    1e6 : 0);
	else if (d->error != NULL && !h->said_error) {
		h->said_error = 1;
		trial_event(t, -1, "http_error", "first request without an "
		    "answer: %s", d->error);
	} else if (d->error == NULL && !h->said_status) {
		h->said_status = 1;
		trial_event(t, -1, "http_error", "first answer with an "
		    "unexpected status: %ld", d->status);
	}
}

/* Build and hand over request ID (intended at DUE) to node NODE. */
static void
send_one(struct loadgen *l, int node, uint64_t id, uint64_t due)
{
	struct lg_http		*h = l->http;
	const struct scenario	*scn = l->t->scn;
	struct dn_http_req	 r;
	char			*cause = NULL;

	atomic_fetch_add(&l->load.submitted, 1);
	if (node < 0 || dn_http_multi_inflight(h->m) >=
	    scn->workload.max_inflight) {
		atomic_fetch_add(&l->load.send_errors, 1);
		return;
	}
	h->node = node;
	h->seq = id;
	h->have_key = h->have_value = 0;
	load_tmpl_expand(&h->url, &h->ub, fill, l);
	memset(&r, 0, sizeof(r));
	r.method = scn->workload.method;
	r.url = h->ub.p;
	if (h->has_body) {
		load_tmpl_expand(&h->body, &h->bb, fill, l);
		r.body = h->bb.p;
		r.body_len = h->bb.len;
	}
	r.tag = due;
	if (dn_http_multi_add(h->m, &r, &cause) != 0) {
		atomic_fetch_add(&l->load.send_errors, 1);
		free(cause);
	}
}

/* The next node that is up, from *RR on (round-robin); -1 if none. */
static int
next_node(struct loadgen *l, int *rr)
{
	struct trial	*t = l->t;
	int		 tries, node = -1;

	for (tries = 0; tries < t->nnodes; tries++) {
		int	k = (*rr + tries) % t->nnodes;

		if (atomic_load(&t->nodes[k].up)) {
			node = k;
			break;
		}
	}
	*rr = (*rr + 1) % t->nnodes;
	return (node);
}

void *
loadgen_http_main(void *arg)
{
	struct loadgen		*l = arg;
	struct lg_http		*h = l->http;
	struct trial		*t = l->t;
	const struct scenario	*scn = t->scn;
	uint64_t		 t0 = atomic_load(&t->t0_ns);
	uint64_t		 end = t0 +
				    (uint64_t)scn->duration_ms * 1000000u;
	uint64_t		 drain_until = 0, id = 0;
	double			 next_s = 0;
	int			 rr = 0;

	if (trial_load_ns(t) >= 0 && dn_net_enter(trial_load_ns(t)) != 0) {
		/* nothing is sent: the run shows 0 submitted */
		trial_event(t, -1, "http_error", "the load cannot enter its "
		    "network namespace %s: %s", dn_net_ns_name(t->net,
		    t->nnodes), strerror(errno));
		return (NULL);
	}
	for (;;) {
		uint64_t	now = dn_now_ns();
		uint64_t	due = t0 + (uint64_t)llround(next_s * 1e9);
		uint64_t	wake;
		int		sending;

		sending = !atomic_load(&l->stop) && due < end;
		if (!sending) {
			if (drain_until == 0) {
				drain_until = now +
				    (uint64_t)scn->workload.timeout_ms *
				    1000000u;
				atomic_store(&l->load.elapsed_ns,
				    (long long)((now > end ? now : end) -
				    t0));
			}
			if (dn_http_multi_inflight(h->m) == 0 ||
			    now >= drain_until)
				break;
		}
		while (sending && due <= now && due < end) {
			send_one(l, next_node(l, &rr), id, due);
			pacing_add_lag(l, (double)(dn_now_ns() - due) / 1e3);
			id++;
			next_s = pacing_intended_s(scn, id);
			due = t0 + (uint64_t)llround(next_s * 1e9);
		}
		if (sending)
			atomic_store(&l->load.elapsed_ns,
			    (long long)(now - t0));
		/* Drive the transfers until the next request is due. */
		now = dn_now_ns();
		wake = sending ? due : now + WAKE_MAX_NS;
		if (wake > now + WAKE_MAX_NS)
			wake = now + WAKE_MAX_NS;
		if (dn_http_multi_inflight(h->m) > 0) {
			int	ms = wake > now ?
				    (int)((wake - now) / 1000000) : 0;

			(void)dn_http_multi_run(h->m, ms, on_done, l);
		} else if (wake > now)
			pacing_sleep_until(wake);
	}
	/* its kept connections: sockets of the load namespace */
	dn_http_multi_close(h->m);
	h->m = NULL;
	return (NULL);
}
