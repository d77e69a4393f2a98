/*
 * transport.c: nng adapter (see transport.h).  The only file that calls
 * nng_*.  Pipe counts, and a guarded socket's pipes (its cap, which
 * showed the token), are kept through nng's pipe notifications.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <nng/nng.h>
#include <nng/protocol/pipeline0/pull.h>
#include <nng/protocol/pipeline0/push.h>
#include <nng/protocol/reqrep0/rep.h>
#include <nng/protocol/reqrep0/req.h>
#include <nng/supplemental/util/platform.h>

#include "clock.h"
#include "listen-watch.h"
#include "protocol.h"
#include "transport.h"
#include "buf.h"
#include "xalloc.h"

/* One pipe of a guarded socket (dn_sock_guard). */
struct pipe_ent {
	uint32_t	 id;
	uint8_t		 trusted;	/* dn_sock_pipe_trust */
	uint8_t		 ours;		/* closed by dn_sock_pipe_close */
	uint64_t	 gone_ns;	/* 0 while it lives */
};
/* A pipe gone before it was trusted is counted this long after, unless
 * a message of it, read before its end, is handled by then. */
#define GONE_GRACE_NS	200000000ull
/*
 * Rings of the last pipe ids, so that one connection is one reject
 * however nng orders a pipe's ADD_POST, first message and end (it orders
 * none; docs/architecture.md): counted (ended untrusted, counted before
 * a message of it read earlier was handled: dn_sock_pipe_state's -2),
 * early (closed for a bad first message before its ADD_POST) and
 * early_trust (trusted before it: a node's HELLO, once counted at the
 * node's exit).  Pipes come and go in bursts of at most the guard's cap.
 */
#define ID_RING	256
struct id_ring {
	uint32_t	 id[ID_RING];
	unsigned	 next;
};

static void
ring_put(struct id_ring *r, uint32_t id)
{
	r->id[r->next++ % ID_RING] = id;
}

static int
ring_has(const struct id_ring *r, uint32_t id)
{
	unsigned	i;

	for (i = 0; i < ID_RING && i < r->next; i++)
		if (r->id[i] == id)
			return (1);
	return (0);
}

struct dn_sock {
	nng_socket	 sock;
	atomic_int	 npipes;
	/* dn_sock_guard: the pipes (under pmu), the cap and the counts */
	pthread_mutex_t	 pmu;
	struct pipe_ent	*pe;
	size_t		 npe, cappe, nlive;
	int		 max_pipes;	/* 0: not guarded */
	uint64_t	 refused, untrusted_gone;
	struct id_ring	 counted_ring, early, early_trust; /* see ID_RING */
	int		 counted;	/* its owner reads the counts */
	struct dn_lwatch lw;	/* a guarded socket's ipc listener */
	nng_aio		*raio;	/* dn_sock_recv's, reused (one receiver) */
	atomic_int	 woken;	/* dn_sock_wake since the last receive */
	struct dn_sock	*_Atomic on_pipe; /* woken when a pipe is added */
	nng_aio		*saio;	/* dn_sock_send's, reused under smu */
	pthread_mutex_t	 smu;
	/* dn_sock_recv_idle's: nng's receive fd, and an eventfd that
	 * dn_sock_wake writes (made by the first call; -1 until then) */
	int		 recvfd;
	atomic_int	 wakefd;
};

static struct pipe_ent *
pipe_find(struct dn_sock *s, uint32_t id)
{
	size_t	i;

	for (i = 0; i < s->npe; i++)
		if (s->pe[i].id == id)
			return (&s->pe[i]);
	return (NULL);
}

/* Forget entry E (pmu held). */
static void
pipe_forget(struct dn_sock *s, struct pipe_ent *e)
{
	*e = s->pe[--s->npe];
}

/* Count and forget the pipes gone untrusted at least GONE_GRACE_NS
 * before NOW (pmu held). */
static void
guard_prune(struct dn_sock *s, uint64_t now)
{
	size_t	i;

	for (i = 0; i < s->npe; ) {
		if (s->pe[i].gone_ns != 0 &&
		    now - s->pe[i].gone_ns >= GONE_GRACE_NS) {
			/* trusted or ours: forgotten, never counted */
			if (!s->pe[i].trusted && !s->pe[i].ours) {
				s->untrusted_gone++;
				ring_put(&s->counted_ring, s->pe[i].id);
			}
			pipe_forget(s, &s->pe[i]);
		} else
			i++;
	}
}

/*
 * A guarded socket's new pipe: refused (closed, counted) at the cap, else
 * noted (trusted if early_trust has it); 1 if refused.  At nng's ADD_POST:
 * closed from ADD_PRE, nng 1.5.2 crashed now and then (a freed mutex,
 * over ipc).  It may have read one message by then (at most the receive
 * limit), handled as from a pipe already gone.
 */
static int
guard_add(struct dn_sock *s, nng_pipe p)
{
	size_t	i;
	int	refuse, ours;

	pthread_mutex_lock(&s->pmu);
	/* a socket whose owner never asks for the counts (a node's); one
	 * whose owner does counts a gone pipe only when it asks, after it
	 * has read what that pipe sent (dn_sock_guard_counts) */
	if (!s->counted && s->npe >= 2 * (size_t)s->max_pipes)
		guard_prune(s, dn_now_ns());
	/* at the cap, a pipe whose REM_POST came before its ADD_POST
	 * (nng does not order them) would hold a place for good: one nng
	 * no longer knows is gone */
	for (i = 0; s->nlive >= (size_t)s->max_pipes && i < s->npe; i++) {
		nng_pipe	q = NNG_PIPE_INITIALIZER;

		q.id = s->pe[i].id;
		if (s->pe[i].gone_ns != 0 || nng_pipe_socket(q).id > 0)
			continue;
		s->nlive--;
		s->pe[i].gone_ns = dn_now_ns();
	}
	ours = ring_has(&s->early, nng_pipe_id(p));
	if ((refuse = !ours && s->nlive >= (size_t)s->max_pipes))
		s->refused++;
	else {
		s->nlive++;
		s->pe = dn_xgrow(s->pe, &s->cappe, s->npe + 1, sizeof(*s->pe));
		s->pe[s->npe++] = (struct pipe_ent){ .id = nng_pipe_id(p),
		    .ours = (uint8_t)ours,
		    .trusted = (uint8_t)ring_has(&s->early_trust,
		    nng_pipe_id(p)) };
	}
	pthread_mutex_unlock(&s->pmu);
	if (refuse || ours)
		nng_pipe_close(p);
	return (refuse);
}

/*
 * A guarded socket's pipe is gone (refused ones were never noted).  One
 * that was neither trusted nor closed by us for a bad first message
 * (counted then) is kept a while: a message it sent before its end may
 * still be waiting to be read, and decides; else it is counted by
 * dn_sock_guard_counts (a frame over the size limit, a peer that closed).
 */
static int
guard_rem(struct dn_sock *s, nng_pipe p)
{
	struct pipe_ent	*e;
	int		 found;

	pthread_mutex_lock(&s->pmu);
	if ((found = (e = pipe_find(s, nng_pipe_id(p))) != NULL)) {
		/* a place guard_add already took back (nng had forgotten the
		 * pipe before this REM_POST came) is not given back twice:
		 * that wrapped nlive below 0, and the guard then refused
		 * every new pipe (guard_caps_and_counts, under load) */
		if (e->gone_ns == 0 && s->nlive > 0)
			s->nlive--;
		if (e->trusted || e->ours)
			pipe_forget(s, e);
		else if (e->gone_ns == 0)
			e->gone_ns = dn_now_ns();
	}
	pthread_mutex_unlock(&s->pmu);
	return (found);
}

static void
pipe_cb(nng_pipe p, nng_pipe_ev ev, void *arg)
{
	struct dn_sock	*s = arg;

	/* a guarded socket counts the pipes it kept: refused ones get a
	 * REM_POST too */
	if (s->max_pipes > 0 && ev == NNG_PIPE_EV_ADD_POST && guard_add(s, p))
		return;
	if (s->max_pipes > 0 && ev == NNG_PIPE_EV_REM_POST &&
	    !guard_rem(s, p))
		return;
	if (ev == NNG_PIPE_EV_ADD_POST) {
		atomic_fetch_add(&s->npipes, 1);
		dn_sock_wake(atomic_load(&s->on_pipe));
	} else if (ev == NNG_PIPE_EV_REM_POST)
		atomic_fetch_sub(&s->npipes, 1);
}

static int
map_err(int rv)
{
	switch (rv) {
	case 0:
		return (0);
	case NNG_EAGAIN:
	case NNG_ETIMEDOUT:
	case NNG_ECANCELED:	/* dn_sock_wake */
		return (DN_EAGAIN);
	case NNG_ECLOSED:
		return (DN_ECLOSED);
	default:
		return (-1000 - rv);
	}
}

const char *
dn_sock_strerror(int err)
{
	if (err == DN_EAGAIN)
		return ("would block or timed out");
	if (err == DN_ECLOSED)
		return ("socket closed");
	if (err <= -1000)
		return (nng_strerror(-(err + 1000)));
	return ("unknown error");
}

int
dn_sock_open(struct dn_sock **sp, enum dn_sock_type type, char **cause)
{
	struct dn_sock	*s;
	int		 rv;

	s = dn_xcalloc(1, sizeof(*s));
	atomic_init(&s->npipes, 0);
	atomic_init(&s->woken, 0);
	atomic_init(&s->on_pipe, NULL);
	switch (type) {
	case DN_SOCK_PUSH:
		rv = nng_push0_open(&s->sock);
		break;
	case DN_SOCK_PULL:
		rv = nng_pull0_open(&s->sock);
		break;
	case DN_SOCK_REQ:
		rv = nng_req0_open(&s->sock);
		break;
	case DN_SOCK_REP:
		rv = nng_rep0_open(&s->sock);
		break;
	default:
		rv = NNG_EINVAL;
	}
	if (rv != 0) {
		*cause = dn_xasprintf("cannot open socket: %s", nng_strerror(rv));
		free(s);
		return (-1);
	}
	if ((rv = nng_aio_alloc(&s->raio, NULL, NULL)) != 0 ||
	    (rv = nng_aio_alloc(&s->saio, NULL, NULL)) != 0) {
		*cause = dn_xasprintf("cannot open socket: %s", nng_strerror(rv));
		nng_aio_free(s->raio);
		nng_close(s->sock);
		free(s);
		return (-1);
	}
	pthread_mutex_init(&s->smu, NULL);
	pthread_mutex_init(&s->pmu, NULL);
	s->recvfd = -1;
	atomic_init(&s->wakefd, -1);
	dn_lwatch_init(&s->lw);
	nng_pipe_notify(s->sock, NNG_PIPE_EV_ADD_POST, pipe_cb, s);
	nng_pipe_notify(s->sock, NNG_PIPE_EV_REM_POST, pipe_cb, s);
	nng_socket_set_ms(s->sock, NNG_OPT_RECONNMINT, 10);
	nng_socket_set_ms(s->sock, NNG_OPT_RECONNMAXT, 50);
	/* A frame's length is read before its bytes: one over the limit
	 * closes its pipe and nothing is allocated for it (0 was "any
	 * size": a local user grew devnet by 500 MB with one frame; issue
	 * 38).  The slack is for req/rep's own header. */
	nng_socket_set_size(s->sock, NNG_OPT_RECVMAXSZ, DN_MSG_MAX + 64);
	*sp = s;
	return (0);
}

/*
 * nng 1.5.2's nng_close can hang for good while an endpoint closes
 * (nanomsg/nng#1543; seen at the end of busy trials).  So the close runs
 * in a detached thread, waited for at most CLOSE_WAIT_MS; then the socket
 * and its dn_sock (nng's pipe callbacks still use it) are left to that
 * thread.  Nothing else is shared, so a late close harms nobody.
 */
#define CLOSE_WAIT_MS	2000
/* Once one close has hung, the others hang too (all wait on nng's pipe
 * reaping): not waited for, or 100 sockets would cost 200 s. */
static atomic_int	close_wedged;
/* dn_sock_exiting: sockets are left open for the process's exit. */
static atomic_int	exiting;

struct closer {
	pthread_mutex_t	 mu;
	pthread_cond_t	 cv;
	int		 done;
	int		 refs;
	struct dn_sock	*s;
};

static void
closer_unref(struct closer *c)
{
	int	last;

	pthread_mutex_lock(&c->mu);
	last = --c->refs == 0;
	pthread_mutex_unlock(&c->mu);
	if (last) {
		pthread_cond_destroy(&c->cv);
		pthread_mutex_destroy(&c->mu);
		free(c);
	}
}

/* What dn_sock_open allocated, once the socket is closed. */
static void
sock_free(struct dn_sock *s)
{
	nng_aio_free(s->raio);
	nng_aio_free(s->saio);
	pthread_mutex_destroy(&s->smu);
	pthread_mutex_destroy(&s->pmu);
	free(s->pe);
	dn_lwatch_fini(&s->lw);
	if (atomic_load(&s->wakefd) >= 0)
		close(atomic_load(&s->wakefd));
	free(s);
}

static void *
closer_main(void *arg)
{
	struct closer	*c = arg;

	nng_close(c->s->sock);
	sock_free(c->s);
	pthread_mutex_lock(&c->mu);
	c->done = 1;
	pthread_cond_signal(&c->cv);
	pthread_mutex_unlock(&c->mu);
	closer_unref(c);
	return (NULL);
}

/* A closer thread for S; NULL when no thread could start (S is then
 * closed and freed here, in the caller's thread). */
static struct closer *
closer_start(struct dn_sock *s)
{
	struct closer	*c;
	pthread_attr_t	 attr;
	pthread_t	 t;
	int		 rv;

	c = dn_xcalloc(1, sizeof(*c));
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->cv, NULL);
	c->refs = 2;
	c->s = s;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	rv = pthread_create(&t, &attr, closer_main, c);
	pthread_attr_destroy(&attr);
	if (rv != 0) {
		nng_close(s->sock);
		sock_free(s);
		c->refs = 1;
		closer_unref(c);
		return (NULL);
	}
	return (c);
}

/* Every close starts before the first is waited for, all under one
 * deadline: 50 closes one after another cost 50 teardowns (issue 26). */
void
dn_sock_close_all(struct dn_sock **v, size_t n)
{
	struct closer	**c;
	struct timespec	  deadline;
	size_t		  i;
	int		  hung = 0;

	if (atomic_load(&exiting))
		return;
	c = dn_xcalloc(n ? n : 1, sizeof(*c));
	for (i = 0; i < n; i++)
		c[i] = v[i] != NULL ? closer_start(v[i]) : NULL;
	clock_gettime(CLOCK_REALTIME, &deadline);
	if (atomic_load(&close_wedged))
		deadline.tv_nsec += 10 * 1000000;	/* a glance */
	else
		deadline.tv_sec += CLOSE_WAIT_MS / 1000;
	if (deadline.tv_nsec >= 1000000000) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000;
	}
	for (i = 0; i < n; i++) {
		if (c[i] == NULL)
			continue;
		pthread_mutex_lock(&c[i]->mu);
		while (!c[i]->done && pthread_cond_timedwait(&c[i]->cv,
		    &c[i]->mu, &deadline) == 0)
			;
		hung |= !c[i]->done;
		pthread_mutex_unlock(&c[i]->mu);
		closer_unref(c[i]);
	}
	free(c);
	if (hung && atomic_exchange(&close_wedged, 1) == 0)
		fprintf(stderr, "DN-NNG-CLOSE-HANG: nng_close did not return "
		    "within %d ms (nng 1.5.2, nanomsg/nng#1543); going on "
		    "without it, and not waiting for later closes\n",
		    CLOSE_WAIT_MS);
}

void
dn_sock_exiting(void)
{
	atomic_store(&exiting, 1);
}

int
dn_sock_close_wedged(void)
{
	return (atomic_load(&close_wedged));
}

void
dn_sock_close(struct dn_sock *s)
{
	dn_sock_close_all(&s, 1);
}

int
dn_sock_listen(struct dn_sock *s, const char *url, char **cause)
{
	int	rv;

	if (strncmp(url, "ipc://", 6) == 0) {
		if (strlen(url + 6) >= 107) {
			*cause = dn_xasprintf("ipc path too long (%zu bytes, "
			    "limit 107): '%s'; use a shorter run directory",
			    strlen(url + 6), url + 6);
			return (-1);
		}
		(void)unlink(url + 6);
	}
	/* a guarded listener is watched: it is the one others reach */
	if ((rv = s->max_pipes > 0 ? dn_lwatch_listen(&s->lw, s->sock, url) :
	    nng_listen(s->sock, url, NULL, 0)) != 0) {
		*cause = dn_xasprintf("cannot listen on '%s': %s", url,
		    nng_strerror(rv));
		return (-1);
	}
	return (0);
}

int
dn_sock_dial(struct dn_sock *s, const char *url, char **cause)
{
	int	rv;

	if ((rv = nng_dial(s->sock, url, NULL, NNG_FLAG_NONBLOCK)) != 0) {
		*cause = dn_xasprintf("cannot dial '%s': %s", url,
		    nng_strerror(rv));
		return (-1);
	}
	return (0);
}

int
dn_sock_set_bufs(struct dn_sock *s, int send_msgs, int recv_msgs)
{
	int	rv = 0;

	if (send_msgs > 0)
		rv = nng_socket_set_int(s->sock, NNG_OPT_SENDBUF, send_msgs);
	if (rv == 0 && recv_msgs > 0)
		rv = nng_socket_set_int(s->sock, NNG_OPT_RECVBUF, recv_msgs);
	return (map_err(rv));
}

int
dn_sock_set_timeouts(struct dn_sock *s, int send_ms, int recv_ms)
{
	int	rv;

	rv = nng_socket_set_ms(s->sock, NNG_OPT_SENDTIMEO, send_ms);
	if (rv == 0)
		rv = nng_socket_set_ms(s->sock, NNG_OPT_RECVTIMEO, recv_ms);
	return (map_err(rv));
}

/*
 * Through one aio kept with the socket, as dn_sock_recv does: nng_send
 * allocates, initialises, finalises and frees an aio per message, which
 * was a good part of the node's metrics agent's cost per sample
 * (docs/benchmarks.md, issue 26).  Only one sender at a time can hold the
 * kept aio; a sender that finds it taken goes through nng_send as before,
 * so no sender ever waits for another.
 */
int
dn_sock_send(struct dn_sock *s, const void *buf, size_t len, int nonblock)
{
	nng_msg	*m;
	int	 rv;

	if (pthread_mutex_trylock(&s->smu) != 0) {
		rv = nng_send(s->sock, (void *)buf, len, nonblock ?
		    NNG_FLAG_NONBLOCK : 0);
		return (map_err(rv));
	}
	if ((rv = nng_msg_alloc(&m, len)) != 0)
		goto out;
	memcpy(nng_msg_body(m), buf, len);
	/* the socket's send timeout unless non-blocking, as nng_sendmsg */
	nng_aio_set_timeout(s->saio, nonblock ? NNG_DURATION_ZERO :
	    NNG_DURATION_DEFAULT);
	nng_aio_set_msg(s->saio, m);
	nng_send_aio(s->sock, s->saio);
	nng_aio_wait(s->saio);
	/* on failure the message is still ours */
	if ((rv = nng_aio_result(s->saio)) != 0)
		nng_msg_free(nng_aio_get_msg(s->saio));
	nng_aio_set_msg(s->saio, NULL);
out:
	pthread_mutex_unlock(&s->smu);
	return (map_err(rv));
}

/*
 * Through one aio kept with the socket rather than nng_recv, which
 * allocates and frees an aio per message and sets the socket's receive
 * timeout option per call: the collector receives hundreds of thousands
 * of messages a second (docs/benchmarks.md, "Collector ingest").
 */
int
dn_sock_recv(struct dn_sock *s, void **bufp, size_t *lenp, int timeout_ms)
{
	return (dn_sock_recv_pipe(s, bufp, lenp, NULL, timeout_ms));
}

int
dn_sock_recv_pipe(struct dn_sock *s, void **bufp, size_t *lenp,
    uint32_t *pipe, int timeout_ms)
{
	nng_msg	*m;
	size_t	 len;
	int	 rv;

	dn_lwatch_tick(&s->lw);
	nng_aio_set_timeout(s->raio, timeout_ms == 0 ? NNG_DURATION_ZERO :
	    timeout_ms < 0 ? NNG_DURATION_INFINITE : timeout_ms);
	nng_recv_aio(s->sock, s->raio);
	/* A wake that came before the receive started: its abort found
	 * nothing to abort, so the receive takes it (dn_sock_wake). */
	if (atomic_exchange(&s->woken, 0))
		nng_aio_abort(s->raio, NNG_ECANCELED);
	nng_aio_wait(s->raio);
	if ((rv = nng_aio_result(s->raio)) != 0)
		return (map_err(rv));
	m = nng_aio_get_msg(s->raio);
	len = nng_msg_len(m);
	if (pipe != NULL)
		*pipe = nng_pipe_id(nng_msg_get_pipe(m));
	/* Callers own the buffer and free it with dn_msg_free. */
	if ((*bufp = nng_alloc(len ? len : 1)) == NULL) {
		nng_msg_free(m);
		return (map_err(NNG_ENOMEM));
	}
	memcpy(*bufp, nng_msg_body(m), len);
	*lenp = len;
	nng_msg_free(m);
	return (0);
}

/*
 * The flag first, then the abort: either the receiver's exchange sees the
 * flag (it aborts itself), or the flag came after it, i.e. after its
 * receive started, and this abort ends that receive.  A receive may end
 * early once too often (a receiver that took the flag, returned and
 * started again before the abort): callers treat DN_EAGAIN as "look
 * again", so that costs a turn of their loop.
 */
void
dn_sock_wake(struct dn_sock *s)
{
	uint64_t	one = 1;
	int		fd;

	if (s == NULL)
		return;
	atomic_store(&s->woken, 1);
	nng_aio_abort(s->raio, NNG_ECANCELED);
	/* a dn_sock_recv_idle in its poll */
	if ((fd = atomic_load(&s->wakefd)) >= 0)
		(void)!write(fd, &one, sizeof(one));	/* full: awake already */
}

/*
 * The wait in poll(2), whose timeout the kernel keeps; the receive
 * itself only ever polls nng (timeout 0: no timer).  Its fds come from
 * the first call, on the receiving thread; a wake before that sets
 * `woken`, which the next receive takes.
 */
int
dn_sock_recv_idle(struct dn_sock *s, void **bufp, size_t *lenp,
    int timeout_ms)
{
	struct pollfd	pfd[2];
	uint64_t	deadline, now, n;
	int		rv, fd;

	if (s->recvfd < 0 &&
	    (nng_socket_get_int(s->sock, NNG_OPT_RECVFD, &fd) != 0 ||
	    (s->recvfd = fd) < 0))
		return (dn_sock_recv(s, bufp, lenp, timeout_ms));
	if (atomic_load(&s->wakefd) < 0) {
		if ((fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0)
			return (dn_sock_recv(s, bufp, lenp, timeout_ms));
		atomic_store(&s->wakefd, fd);
	}
	deadline = dn_now_ns() + (uint64_t)timeout_ms * 1000000;
	for (;;) {
		/* a wake from before the eventfd was there; later ones
		 * also write it, so none is lost to dn_sock_recv's own
		 * take of the flag below */
		if (atomic_exchange(&s->woken, 0))
			return (DN_EAGAIN);
		if ((rv = dn_sock_recv(s, bufp, lenp, 0)) != DN_EAGAIN)
			return (rv);
		now = dn_now_ns();
		if (now >= deadline)
			return (DN_EAGAIN);
		pfd[0].fd = s->recvfd;
		pfd[0].events = POLLIN;
		pfd[1].fd = atomic_load(&s->wakefd);
		pfd[1].events = POLLIN;
		pfd[0].revents = pfd[1].revents = 0;
		/* rounded up: a wait that ends early would poll again */
		if (poll(pfd, 2, (int)((deadline - now + 999999) / 1000000)) < 0
		    && errno != EINTR)
			return (-1000 - NNG_EINTERNAL);
		if (pfd[1].revents & POLLIN) {
			/* may be empty: an earlier wake's read took it */
			(void)!read(pfd[1].fd, &n, sizeof(n));
			atomic_store(&s->woken, 0);
			return (DN_EAGAIN);
		}
	}
}

void
dn_msg_free(void *buf, size_t len)
{
	nng_free(buf, len);
}

void
dn_sock_wake_on_pipe(struct dn_sock *s, struct dn_sock *target)
{
	atomic_store(&s->on_pipe, target);
}

int
dn_sock_npipes(struct dn_sock *s)
{
	return (atomic_load(&s->npipes));
}

void
dn_sock_guard(struct dn_sock *s, int max_pipes)
{
	s->max_pipes = max_pipes > 0 ? max_pipes : 1;
}

int
dn_sock_set_recv_max(struct dn_sock *s, size_t bytes)
{
	return (map_err(nng_socket_set_size(s->sock, NNG_OPT_RECVMAXSZ,
	    bytes)));
}

void
dn_sock_pipe_trust(struct dn_sock *s, uint32_t pipe)
{
	struct pipe_ent	*e;

	pthread_mutex_lock(&s->pmu);
	if ((e = pipe_find(s, pipe)) != NULL) {
		e->trusted = 1;
		if (e->gone_ns != 0)
			pipe_forget(s, e);
	} else if (!ring_has(&s->early_trust, pipe))
		ring_put(&s->early_trust, pipe);	/* before its ADD_POST */
	pthread_mutex_unlock(&s->pmu);
}

int
dn_sock_pipe_state(struct dn_sock *s, uint32_t pipe)
{
	struct pipe_ent	*e;
	int		 st;

	pthread_mutex_lock(&s->pmu);
	e = pipe_find(s, pipe);
	/* a trusted one that is gone is forgotten: -1 */
	st = e == NULL || e->ours ? -1 : e->trusted;
	if (e == NULL && ring_has(&s->counted_ring, pipe))
		st = -2;
	else if (e == NULL && ring_has(&s->early_trust, pipe))
		st = 1;		/* trusted before its ADD_POST */
	pthread_mutex_unlock(&s->pmu);
	return (st);
}

void
dn_sock_pipe_close(struct dn_sock *s, uint32_t pipe)
{
	struct pipe_ent	*e;
	nng_pipe	 p = NNG_PIPE_INITIALIZER;

	pthread_mutex_lock(&s->pmu);
	if ((e = pipe_find(s, pipe)) != NULL) {
		e->ours = 1;
		if (e->gone_ns != 0)
			pipe_forget(s, e);
	} else
		ring_put(&s->early, pipe);	/* before its ADD_POST */
	pthread_mutex_unlock(&s->pmu);
	/* nng_pipe is a struct of its id (nng.h): the id names it */
	p.id = pipe;
	(void)nng_pipe_close(p);
}

unsigned
dn_sock_relistens(struct dn_sock *s)
{
	return (s->lw.relistens);
}

void
dn_sock_guard_counts(struct dn_sock *s, uint64_t *refused,
    uint64_t *untrusted_gone)
{
	pthread_mutex_lock(&s->pmu);
	s->counted = 1;
	guard_prune(s, dn_now_ns());
	*refused = s->refused;
	*untrusted_gone = s->untrusted_gone;
	pthread_mutex_unlock(&s->pmu);
}

void
dn_msleep(int ms)
{
	nng_msleep(ms);
}
