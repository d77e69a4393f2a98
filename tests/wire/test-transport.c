/*
 * test-transport.c: a receive can be ended from another thread at once
 * (dn_sock_wake), before or while it waits, and a new pipe wakes the
 * socket it names (dn_sock_wake_on_pipe): how devnet-node stops on
 * SIGTERM and says HELLO without polling (issue 26).  Real nng sockets on
 * ipc paths in a private directory.  Each wait is 5 s long, each bound
 * 2.5 s: a wake that did not work takes the whole 5 s.  And how sockets
 * close: several at once (dn_sock_close_all), or not at all once the
 * process is about to exit (dn_sock_exiting, the node's stop).  The same
 * wakes end dn_sock_recv_idle (a poll(2) wait), which also takes a
 * message that comes while it waits and keeps its timeout.
 *
 * And devnet's own SP framing (sp-push.h, the node agent's connection
 * since issue 26's fourth round) against real nng PULL sockets, over ipc
 * and tcp: the messages arrive whole and in order (the collector cannot
 * tell it from nng's PUSH); a push made before its listener connects
 * once it listens and delivers what it held; a peer that goes is seen
 * gone, and a new one on the same path gets the next messages; a peer
 * that never reads makes a send fail at once (never wait: the node's
 * control loop sends) and a flush give up at its bound.
 */
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>

#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "clock.h"
#include "sp-push.h"
#include "transport.h"

#define LONG_WAIT_MS	5000
#define BOUND_MS	2500

struct waiter {
	struct dn_sock	*s;
	int		 idle;		/* dn_sock_recv_idle */
	int		 rv;
	uint64_t	 took_ms;
};

static void *
waiter_main(void *arg)
{
	struct waiter	*w = arg;
	uint64_t	 t0 = dn_now_ns();
	void		*buf;
	size_t		 len;

	w->rv = w->idle ? dn_sock_recv_idle(w->s, &buf, &len, LONG_WAIT_MS) :
	    dn_sock_recv(w->s, &buf, &len, LONG_WAIT_MS);
	if (w->rv == 0)
		dn_msg_free(buf, len);
	w->took_ms = (dn_now_ns() - t0) / 1000000u;
	return (NULL);
}

/* A PULL listening on URL, or NULL when it cannot listen there. */
static struct dn_sock *
pull_at(const char *url)
{
	struct dn_sock	*s;
	char		*cause = NULL;

	assert_int_equal(dn_sock_open(&s, DN_SOCK_PULL, &cause), 0);
	if (dn_sock_listen(s, url, &cause) != 0) {
		free(cause);
		dn_sock_close(s);
		return (NULL);
	}
	return (s);
}

static struct dn_sock *
pull_on(const char *dir, const char *name)
{
	struct dn_sock	*s;
	char		 url[256];

	snprintf(url, sizeof(url), "ipc://%s/%s", dir, name);
	assert_non_null(s = pull_at(url));
	return (s);
}

static void
wake_while(void **state, int idle, const char *name)
{
	struct waiter	w = { .idle = idle };
	pthread_t	th;

	w.s = pull_on(*state, name);
	assert_int_equal(pthread_create(&th, NULL, waiter_main, &w), 0);
	dn_msleep(100);			/* in its receive by now */
	dn_sock_wake(w.s);
	pthread_join(th, NULL);
	assert_int_equal(w.rv, DN_EAGAIN);
	assert_true(w.took_ms < BOUND_MS);
	dn_sock_close(w.s);
}

static void
wake_before(void **state, int idle, const char *name)
{
	struct waiter	w = { .idle = idle };

	w.s = pull_on(*state, name);
	dn_sock_wake(w.s);		/* no receive yet: the next one ends */
	waiter_main(&w);
	assert_int_equal(w.rv, DN_EAGAIN);
	assert_true(w.took_ms < BOUND_MS);
	/* taken once: the receive after it waits its timeout again */
	{
		void	*buf;
		size_t	 len;
		uint64_t t0 = dn_now_ns();

		assert_int_equal(idle ? dn_sock_recv_idle(w.s, &buf, &len,
		    200) : dn_sock_recv(w.s, &buf, &len, 200), DN_EAGAIN);
		assert_true(dn_now_ns() - t0 >= 150 * 1000000ull);
	}
	dn_sock_close(w.s);
}

static void
pipe_wakes(void **state, int idle, const char *wname, const char *dname)
{
	struct waiter	 w = { .idle = idle };
	struct dn_sock	*in, *out;
	pthread_t	 th;
	char		 url[256], *cause = NULL;

	w.s = pull_on(*state, wname);		/* the one that waits */
	in = pull_on(*state, dname);		/* the one a peer dials */
	snprintf(url, sizeof(url), "ipc://%s/%s", (char *)*state, dname);
	assert_int_equal(dn_sock_open(&out, DN_SOCK_PUSH, &cause), 0);
	dn_sock_wake_on_pipe(out, w.s);
	assert_int_equal(pthread_create(&th, NULL, waiter_main, &w), 0);
	dn_msleep(100);
	assert_int_equal(dn_sock_dial(out, url, &cause), 0);
	pthread_join(th, NULL);
	assert_int_equal(w.rv, DN_EAGAIN);
	assert_true(w.took_ms < BOUND_MS);
	assert_int_equal(dn_sock_npipes(out), 1);
	dn_sock_close(out);
	dn_sock_close(in);
	dn_sock_close(w.s);
}

static void wake_while_waiting(void **state) { wake_while(state, 0, "a"); }
static void wake_before_waiting(void **state) { wake_before(state, 0, "b"); }
static void new_pipe_wakes(void **state) { pipe_wakes(state, 0, "c", "d"); }
static void idle_wake_while(void **state) { wake_while(state, 1, "ia"); }
static void idle_wake_before(void **state) { wake_before(state, 1, "ib"); }
static void idle_pipe_wakes(void **state) { pipe_wakes(state, 1, "ic", "id"); }

/* dn_sock_recv_idle takes a message sent while it waits, at once. */
static void
idle_takes_message(void **state)
{
	struct waiter	 w = { .idle = 1 };
	struct dn_sock	*out;
	pthread_t	 th;
	char		 url[256], *cause = NULL;

	w.s = pull_on(*state, "ie");
	snprintf(url, sizeof(url), "ipc://%s/ie", (char *)*state);
	assert_int_equal(dn_sock_open(&out, DN_SOCK_PUSH, &cause), 0);
	assert_int_equal(dn_sock_dial(out, url, &cause), 0);
	assert_int_equal(pthread_create(&th, NULL, waiter_main, &w), 0);
	dn_msleep(100);
	assert_int_equal(dn_sock_send(out, "x", 1, 0), 0);
	pthread_join(th, NULL);
	assert_int_equal(w.rv, 0);
	assert_true(w.took_ms < BOUND_MS);
	dn_sock_close(out);
	dn_sock_close(w.s);
}

/*
 * A plain connection that speaks SP push0 on an ipc path: header out,
 * the listener's header back (the pipe exists from then on), -1 when
 * the listener is not there.  The guard tests' peers: an nng PUSH
 * dialer whose pipe the guard refuses can crash inside nng 1.5.2 (its
 * push0_pipe_start appends the pipe to its ready list after the pipe's
 * close already ran, from the receive that saw the far end go: "panic:
 * appending node already on a list", CI of 2026-12-07, fixed upstream
 * by 979d88e8), and an nng dialer redials, so a refusal counts once per
 * try; a plain connection is refused once.
 */
static int
sp_connect(const char *dir, const char *name)
{
	struct sockaddr_un	sa = { .sun_family = AF_UNIX };
	struct timeval		tv = { .tv_sec = 5 };
	uint8_t			hdr[8];
	int			fd;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s", dir, name);
	if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) < 0)
		return (-1);
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    send(fd, dn_sp_push0_hdr, 8, MSG_NOSIGNAL) != 8 ||
	    recv(fd, hdr, 8, MSG_WAITALL) != 8) {
		close(fd);
		return (-1);
	}
	return (fd);
}

/* One framed message on an sp_connect connection: 0, or -1 */
static int
sp_send(int fd, const void *msg, size_t len)
{
	uint8_t	hdr[16];
	size_t	n = dn_sp_frame_hdr(hdr, len, 1);

	if (send(fd, hdr, n, MSG_NOSIGNAL) != (ssize_t)n ||
	    send(fd, msg, len, MSG_NOSIGNAL) != (ssize_t)len)
		return (-1);
	return (0);
}

/* 1 when the far end closed fd within ms, 0 when it still holds it */
static int
sp_closed(int fd, int ms)
{
	struct pollfd	pfd = { .fd = fd, .events = POLLIN };
	char		c;

	if (poll(&pfd, 1, ms) <= 0)
		return (0);
	return (recv(fd, &c, 1, MSG_DONTWAIT) <= 0);
}

/*
 * A guarded socket (issue 38): pipes beyond its cap closed and counted,
 * once each; a pipe whose message came in is untrusted (0) until trusted
 * (1); a pipe that ended untrusted, without a message, is counted 200 ms
 * after; a frame over the receive limit closes its pipe unread.
 */
static void
guard_caps_and_counts(void **state)
{
	const char	*dir = *state;
	struct dn_sock	*in;
	uint64_t	 refused, gone;
	static char	 frame[4096];
	uint8_t		 hdr[16];
	char		 url[256], *cause = NULL;
	void		*buf;
	size_t		 len, n;
	uint32_t	 pipe;
	int		 k, i, fd, held, out[5];

	snprintf(url, sizeof(url), "ipc://%s/g", dir);
	assert_int_equal(dn_sock_open(&in, DN_SOCK_PULL, &cause), 0);
	dn_sock_guard(in, 3);
	assert_int_equal(dn_sock_set_recv_max(in, 1024), 0);
	assert_int_equal(dn_sock_listen(in, url, &cause), 0);
	for (k = 0; k < 5; k++)
		assert_true((out[k] = sp_connect(dir, "g")) >= 0);
	for (i = 0; i < 300 && (dn_sock_npipes(in) < 3 ||
	    (dn_sock_guard_counts(in, &refused, &gone), refused < 2)); i++)
		dn_msleep(10);
	assert_int_equal(dn_sock_npipes(in), 3);
	dn_sock_guard_counts(in, &refused, &gone);
	assert_int_equal(refused, 2);	/* the two beyond, once each */
	for (k = 0, held = 0; k < 5; k++)
		held += !sp_closed(out[k], 100);
	assert_int_equal(held, 3);	/* and those two were closed */
	for (k = 0; k < 5; k++)
		close(out[k]);
	for (i = 0; i < 100 && dn_sock_npipes(in) > 0; i++)
		dn_msleep(10);
	dn_msleep(250);
	dn_sock_guard_counts(in, &refused, &gone);
	assert_true(gone >= 3);	/* three held, none said a word */
	/* one message: its pipe untrusted, then trusted; then gone (again
	 * on a new connection if one was refused while the old ones were
	 * still being reaped) */
	for (i = 0, k = -1, fd = -1; i < 20 && k != 0; i++) {
		if (fd >= 0)
			close(fd);
		assert_true((fd = sp_connect(dir, "g")) >= 0);
		assert_int_equal(sp_send(fd, "x", 1), 0);
		k = dn_sock_recv_pipe(in, &buf, &len, &pipe, 1000);
	}
	if (k != 0) {
		dn_sock_guard_counts(in, &refused, &gone);
		print_message("no message in 20 tries: pipes %d, refused %llu, "
		    "gone %llu\n", dn_sock_npipes(in),
		    (unsigned long long)refused, (unsigned long long)gone);
	}
	assert_int_equal(k, 0);
	dn_msg_free(buf, len);
	/* nng does not order a pipe's first message and its ADD_POST
	 * callback: under a sanitizer the message can come first */
	for (i = 0; i < 100 && dn_sock_pipe_state(in, pipe) < 0; i++)
		dn_msleep(10);
	assert_int_equal(dn_sock_pipe_state(in, pipe), 0);
	dn_sock_pipe_trust(in, pipe);
	assert_int_equal(dn_sock_pipe_state(in, pipe), 1);
	/* a frame over the limit: the pipe closed once the length is read */
	assert_true((out[1] = sp_connect(dir, "g")) >= 0);
	n = dn_sp_frame_hdr(hdr, 1u << 20, 1);
	assert_int_equal(send(out[1], hdr, n, MSG_NOSIGNAL), (ssize_t)n);
	(void)send(out[1], frame, sizeof(frame), MSG_NOSIGNAL);
	assert_int_equal(dn_sock_recv(in, &buf, &len, 300), DN_EAGAIN);
	assert_true(sp_closed(out[1], 5000));	/* closed by the far end */
	close(out[1]);
	close(fd);
	for (i = 0; i < 100 && dn_sock_npipes(in) > 0; i++)
		dn_msleep(10);
	dn_msleep(250);
	dn_sock_guard_counts(in, &refused, &gone);
	if (gone < 4)
		print_message("gone %llu, refused %llu, relistens %u\n",
		    (unsigned long long)gone, (unsigned long long)refused,
		    dn_sock_relistens(in));
	assert_true(gone >= 4);		/* the oversized one's */
	assert_int_equal(dn_sock_pipe_state(in, pipe), -1);
	dn_sock_close(in);
}

/*
 * A pipe that sent one message and ended, its end counted (200 ms after)
 * before the message read was handled: the message's pipe says -2, counted
 * already, so the collector does not count that connection twice (the
 * race dn.e2e.hostile saw under ASan: 13 rejects for 12).
 */
static void
guard_late_message(void **state)
{
	struct dn_sock	*in, *out;
	uint64_t	 refused, gone;
	char		 url[256], *cause = NULL;
	void		*buf;
	size_t		 len;
	uint32_t	 pipe;
	int		 i;

	snprintf(url, sizeof(url), "ipc://%s/late", (char *)*state);
	assert_int_equal(dn_sock_open(&in, DN_SOCK_PULL, &cause), 0);
	dn_sock_guard(in, 3);
	assert_int_equal(dn_sock_listen(in, url, &cause), 0);
	assert_int_equal(dn_sock_open(&out, DN_SOCK_PUSH, &cause), 0);
	assert_int_equal(dn_sock_dial(out, url, &cause), 0);
	for (i = 0; i < 300 && dn_sock_npipes(in) < 1; i++)
		dn_msleep(10);
	assert_int_equal(dn_sock_send(out, "bad", 3, 0), 0);
	/* read, not yet handled (the collector's queue between them) */
	assert_int_equal(dn_sock_recv_pipe(in, &buf, &len, &pipe, 1000), 0);
	assert_int_equal(len, 3);
	dn_msg_free(buf, len);
	dn_sock_close(out);
	for (i = 0; i < 100 && dn_sock_npipes(in) > 0; i++)
		dn_msleep(10);
	assert_int_equal(dn_sock_pipe_state(in, pipe), 0);	/* in grace */
	dn_msleep(250);
	dn_sock_guard_counts(in, &refused, &gone);
	assert_int_equal(gone, 1);
	assert_int_equal(dn_sock_pipe_state(in, pipe), -2);
	dn_sock_close(in);
}

/*
 * A pipe trusted before nng told the guard of it (its message handled
 * before its ADD_POST: nng orders neither) is trusted when that comes,
 * and its end is not counted.  Before, the trust was dropped, and a
 * node's connection whose HELLO came first was counted, at the node's
 * exit, as one that never showed the token (CI of stop 43 under ASan).
 * nng numbers pipes one after another (both ends' in one process), so
 * the next connection's pipes are trusted by number before it is made.
 */
static void
guard_trust_before_add(void **state)
{
	struct dn_sock	*in, *out;
	uint64_t	 refused, gone;
	char		 url[256], *cause = NULL;
	void		*buf;
	size_t		 len;
	uint32_t	 pipe, k;
	int		 i, c;

	snprintf(url, sizeof(url), "ipc://%s/early", (char *)*state);
	assert_int_equal(dn_sock_open(&in, DN_SOCK_PULL, &cause), 0);
	dn_sock_guard(in, 3);
	assert_int_equal(dn_sock_listen(in, url, &cause), 0);
	/* a pipe never seen: trusted once asked */
	dn_sock_pipe_trust(in, 0x7ffffff0u);
	assert_int_equal(dn_sock_pipe_state(in, 0x7ffffff0u), 1);
	for (c = 0; c < 2; c++) {
		assert_int_equal(dn_sock_open(&out, DN_SOCK_PUSH, &cause), 0);
		assert_int_equal(dn_sock_dial(out, url, &cause), 0);
		for (i = 0; i < 300 && dn_sock_npipes(in) < 1; i++)
			dn_msleep(10);
		assert_int_equal(dn_sock_send(out, "tok", 3, 0), 0);
		assert_int_equal(dn_sock_recv_pipe(in, &buf, &len, &pipe,
		    1000), 0);
		dn_msg_free(buf, len);
		if (c == 0) {
			/* the first the usual way; the next ones by number */
			dn_sock_pipe_trust(in, pipe);
			for (k = 1; k <= 4; k++)
				dn_sock_pipe_trust(in, pipe + k);
		}
		assert_int_equal(dn_sock_pipe_state(in, pipe), 1);
		dn_sock_close(out);
		for (i = 0; i < 100 && dn_sock_npipes(in) > 0; i++)
			dn_msleep(10);
	}
	dn_msleep(250);
	dn_sock_guard_counts(in, &refused, &gone);
	assert_int_equal(gone, 0);
	assert_int_equal(refused, 0);
	dn_sock_close(in);
}

/*
 * nng 1.5.2's ipc listener stops for good when a peer goes away before
 * nng wrote its header (metrics/wire/listen-watch.c): plain connects
 * closed at once stop it (about one in three does when nng accepts after
 * the close), and a guarded socket's receive calls see that and open it
 * again, so a dialer that comes after reaches it (seen:
 * guard_caps_and_counts under ASan, 3 runs in 60 beside CPU hogs, before
 * the watch).
 */
static void
listener_comes_back(void **state)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct dn_sock	*in, *out;
	char		 url[256], *cause = NULL;
	void		*buf = NULL;
	size_t		 len;
	int		 i, k, fd, rv = DN_EAGAIN;

	snprintf(url, sizeof(url), "ipc://%s/w", (char *)*state);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/w", (char *)*state);
	assert_int_equal(dn_sock_open(&in, DN_SOCK_PULL, &cause), 0);
	dn_sock_guard(in, 4);
	assert_int_equal(dn_sock_listen(in, url, &cause), 0);
	/* until it has stopped and been opened again: a round is 50
	 * closes, then the receive calls' watch (a stop is seen in 8 s) */
	for (k = 0; k < 10 && dn_sock_relistens(in) == 0; k++) {
		for (i = 0; i < 50; i++) {
			assert_true((fd = socket(AF_UNIX, SOCK_STREAM, 0)) >=
			    0);
			assert_int_equal(connect(fd, (struct sockaddr *)&sa,
			    sizeof(sa)), 0);
			close(fd);
		}
		for (i = 0; i < 12 && dn_sock_relistens(in) == 0; i++)
			assert_int_equal(dn_sock_recv(in, &buf, &len, 1000),
			    DN_EAGAIN);
	}
	assert_true(dn_sock_relistens(in) >= 1);
	assert_int_equal(dn_sock_open(&out, DN_SOCK_PUSH, &cause), 0);
	assert_int_equal(dn_sock_dial(out, url, &cause), 0);
	for (i = 0; i < 15 && rv != 0; i++) {
		assert_int_equal(dn_sock_send(out, "x", 1, 0), 0);
		rv = dn_sock_recv(in, &buf, &len, 1000);
	}
	assert_int_equal(rv, 0);
	dn_msg_free(buf, len);
	dn_sock_close(out);
	dn_sock_close(in);
}

/* Wait until S has WANT pipes, at most BOUND_MS; its count then. */
static int
pipes_become(struct dn_sock *s, int want)
{
	uint64_t	t0 = dn_now_ns();

	while (dn_sock_npipes(s) != want &&
	    dn_now_ns() - t0 < (uint64_t)BOUND_MS * 1000000u)
		dn_msleep(5);
	return (dn_sock_npipes(s));
}

/* N pushers dialled into IN, every pipe up. */
static void
dial_into(void **state, struct dn_sock *in, const char *name,
    struct dn_sock **v, int n)
{
	char	url[256], *cause = NULL;
	int	k;

	snprintf(url, sizeof(url), "ipc://%s/%s", (char *)*state, name);
	for (k = 0; k < n; k++) {
		assert_int_equal(dn_sock_open(&v[k], DN_SOCK_PUSH, &cause),
		    0);
		assert_int_equal(dn_sock_dial(v[k], url, &cause), 0);
	}
	assert_int_equal(pipes_become(in, n), n);
}

/* Every socket given is closed (a NULL among them skipped): the other
 * end sees each pipe go. */
static void
close_all_closes_each(void **state)
{
	struct dn_sock	*in, *v[5] = { NULL };

	in = pull_on(*state, "e");
	dial_into(state, in, "e", v, 4);
	v[4] = v[2];		/* a NULL in the middle */
	v[2] = NULL;
	dn_sock_close_all(v, 5);
	assert_int_equal(pipes_become(in, 0), 0);
	dn_sock_close(in);
}

/* After dn_sock_exiting a close returns at once and tears nothing down:
 * the peer's pipe stays until the process exits.  Last in the table:
 * the setting is for the rest of the process. */
static void
exiting_leaves_open(void **state)
{
	struct dn_sock	*in, *out;
	uint64_t	 t0;

	in = pull_on(*state, "f");
	dial_into(state, in, "f", &out, 1);
	dn_sock_exiting();
	t0 = dn_now_ns();
	dn_sock_close(out);
	dn_sock_close(in);
	assert_true(dn_now_ns() - t0 < 100 * 1000000ull);
	dn_msleep(300);
	assert_int_equal(dn_sock_npipes(in), 1);
}

#define CAP		(64u << 10)
#define SP_BOUND_MS	2000

/* Receive one message and check it is WANT. */
static void
expect_msg(struct dn_sock *s, const char *want)
{
	void	*buf;
	size_t	 len;

	assert_int_equal(dn_sock_recv(s, &buf, &len, SP_BOUND_MS), 0);
	assert_int_equal(len, strlen(want));
	assert_memory_equal(buf, want, len);
	dn_msg_free(buf, len);
}

/* Wait until P's connected state is WANT; the ms it took. */
static uint64_t
until_connected(struct dn_sppush *p, int want)
{
	uint64_t	t0 = dn_now_ns();

	while (dn_sppush_connected(p) != want) {
		assert_true(dn_now_ns() - t0 < SP_BOUND_MS * 1000000ull);
		dn_msleep(2);
	}
	return ((dn_now_ns() - t0) / 1000000u);
}

static void
in_order(const char *url, struct dn_sock *in)
{
	struct dn_sppush	*p;
	char			*cause = NULL, big[3000];

	assert_int_equal(dn_sppush_open(&p, url, CAP, &cause), 0);
	(void)until_connected(p, 1);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(dn_sppush_send(p, "one", 3, 0), 0);
	assert_int_equal(dn_sppush_send(p, big, strlen(big), 0), 0);
	assert_int_equal(dn_sppush_send(p, "three", 5, 0), 0);
	expect_msg(in, "one");
	expect_msg(in, big);
	expect_msg(in, "three");
	assert_int_equal(dn_sppush_flush(p, 100), 0);
	assert_int_equal(dn_sppush_lost(p), 0);
	dn_sppush_close(p);
}

static void
ipc_in_order(void **state)
{
	char		 url[256];
	struct dn_sock	*in;

	snprintf(url, sizeof(url), "ipc://%s/a", (char *)*state);
	assert_non_null(in = pull_at(url));
	in_order(url, in);
	dn_sock_close(in);
}

static void
tcp_in_order(void **state)
{
	char		 url[64];
	struct dn_sock	*in = NULL;
	int		 i;

	(void)state;
	/* below the ephemeral range, tried until one is free */
	for (i = 0; i < 50 && in == NULL; i++) {
		snprintf(url, sizeof(url), "tcp://127.0.0.1:%d",
		    20000 + (int)((getpid() * 7 + i * 131) % 10000));
		in = pull_at(url);
	}
	assert_non_null(in);
	in_order(url, in);
	dn_sock_close(in);
}

/* Sent before anyone listens: held, and delivered once the listener is
 * there (nng's dialer did the same with its queue). */
static void
before_listener(void **state)
{
	struct dn_sppush	*p;
	struct dn_sock		*in;
	char			 url[256], *cause = NULL;

	snprintf(url, sizeof(url), "ipc://%s/b", (char *)*state);
	assert_int_equal(dn_sppush_open(&p, url, CAP, &cause), 0);
	assert_int_equal(dn_sppush_connected(p), 0);
	assert_int_equal(dn_sppush_send(p, "early", 5, 0), 0);
	assert_non_null(in = pull_at(url));
	(void)until_connected(p, 1);
	assert_int_equal(dn_sppush_flush(p, SP_BOUND_MS), 0);
	expect_msg(in, "early");
	dn_sppush_close(p);
	dn_sock_close(in);
}

/* The collector goes: seen gone (devnet-node's devnet_gone counts from
 * there); a new one on the same path gets the next message. */
static void
peer_goes_and_comes(void **state)
{
	struct dn_sppush	*p;
	struct dn_sock		*in;
	char			 url[256], *cause = NULL;

	snprintf(url, sizeof(url), "ipc://%s/c", (char *)*state);
	assert_non_null(in = pull_at(url));
	assert_int_equal(dn_sppush_open(&p, url, CAP, &cause), 0);
	(void)until_connected(p, 1);
	assert_int_equal(dn_sppush_send(p, "first", 5, 0), 0);
	expect_msg(in, "first");
	dn_sock_close(in);
	assert_true(until_connected(p, 0) < SP_BOUND_MS);
	assert_non_null(in = pull_at(url));
	(void)until_connected(p, 1);
	assert_int_equal(dn_sppush_send(p, "second", 6, 0), 0);
	expect_msg(in, "second");
	dn_sppush_close(p);
	dn_sock_close(in);
}

/* A peer that takes the connection and never reads: the socket fills,
 * then the held bytes; from there a send fails at once, and a flush
 * gives up at its bound.  Nothing waits longer than asked. */
static void
full_never_blocks(void **state)
{
	struct sockaddr_un	 sa = { .sun_family = AF_UNIX };
	struct dn_sppush	*p;
	char			 url[256], msg[1000], *cause = NULL;
	uint64_t		 t0, took, worst = 0;
	int			 lfd, i, sent = 0, refused = 0;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/d", (char *)*state);
	snprintf(url, sizeof(url), "ipc://%s", sa.sun_path);
	assert_true((lfd = socket(AF_UNIX, SOCK_STREAM, 0)) >= 0);
	assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(lfd, 4), 0);
	assert_int_equal(dn_sppush_open(&p, url, CAP, &cause), 0);
	(void)until_connected(p, 1);
	memset(msg, 'm', sizeof(msg));
	for (i = 0; i < 2000; i++) {
		t0 = dn_now_ns();
		if (dn_sppush_send(p, msg, sizeof(msg), 0) == 0)
			sent++;
		else
			refused++;
		took = dn_now_ns() - t0;
		worst = took > worst ? took : worst;
	}
	/* the kernel's buffer and CAP took some, the rest was refused */
	assert_true(sent > (int)(CAP / sizeof(msg)) - 1);
	assert_true(refused > 0);
	/* a send that blocked would wait for good (the peer never reads);
	 * 50 ms was a scheduler's preemption twice in 8 ASan runs beside
	 * three CPU hogs (load 12) */
	assert_true(worst < 500 * 1000000ull);
	t0 = dn_now_ns();
	assert_int_equal(dn_sppush_send(p, msg, sizeof(msg), 100),
	    DN_EAGAIN);
	took = (dn_now_ns() - t0) / 1000000u;
	assert_true(took >= 90 && took < 1000);
	t0 = dn_now_ns();
	assert_int_equal(dn_sppush_flush(p, 100), DN_EAGAIN);
	took = (dn_now_ns() - t0) / 1000000u;
	assert_true(took >= 90 && took < 1000);
	dn_sppush_close(p);
	close(lfd);
}

static void
bad_url(void **state)
{
	struct dn_sppush	*p = NULL;
	char			*cause = NULL;

	(void)state;
	assert_int_equal(dn_sppush_open(&p, "inproc://x", CAP, &cause), -1);
	assert_non_null(strstr(cause, "ipc:///PATH or tcp://HOST:PORT"));
	free(cause);
}

static int
setup(void **state)
{
	char	tmpl[] = "/tmp/dn-tt-XXXXXX";

	if (mkdtemp(tmpl) == NULL)
		return (-1);
	*state = strdup(tmpl);
	return (0);
}

static int
teardown(void **state)
{
	char	cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", (char *)*state);
	if (system(cmd) != 0)
		return (-1);
	free(*state);
	return (0);
}

/*
 * nng 1.5.2's nng_close deadlocks now and then (nanomsg/nng#1543: here 1
 * run in 40, in guard_caps_and_counts, closing dialers the guard kept
 * refusing, before its peers were plain connections: sp_connect).  devnet goes on without that close (DN-NNG-CLOSE-HANG), but
 * nng then closes nothing more in the process, so every later test that
 * waits for a pipe to end fails for nng's reason, not devnet's.  So when
 * tests failed and such a deadlock happened, the whole binary runs once
 * more, in a new process; a defect of devnet's fails both times.
 */
int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(wake_while_waiting),
		cmocka_unit_test(wake_before_waiting),
		cmocka_unit_test(new_pipe_wakes),
		cmocka_unit_test(idle_wake_while),
		cmocka_unit_test(idle_wake_before),
		cmocka_unit_test(idle_pipe_wakes),
		cmocka_unit_test(idle_takes_message),
		cmocka_unit_test(close_all_closes_each),
		cmocka_unit_test(ipc_in_order),
		cmocka_unit_test(tcp_in_order),
		cmocka_unit_test(before_listener),
		cmocka_unit_test(peer_goes_and_comes),
		cmocka_unit_test(full_never_blocks),
		cmocka_unit_test(bad_url),
		cmocka_unit_test(guard_caps_and_counts),
		cmocka_unit_test(guard_late_message),
		cmocka_unit_test(guard_trust_before_add),
		cmocka_unit_test(listener_comes_back),
		cmocka_unit_test(exiting_leaves_open),	/* last */
	};

	int failed;

	(void)argc;
	failed = cmocka_run_group_tests(tests, setup, teardown);
	if (failed > 0 && dn_sock_close_wedged() &&
	    getenv("DN_TRANSPORT_AGAIN") == NULL) {
		printf("nng_close deadlocked (nanomsg/nng#1543) and %d test(s) "
		    "failed after it: running them all once more, in a new "
		    "process\n", failed);
		fflush(stdout);
		setenv("DN_TRANSPORT_AGAIN", "1", 1);
		execv("/proc/self/exe", argv);
		perror("execv /proc/self/exe");
	}
	return (failed);
}
