/*
 * transport.h: the only door to nng.  Sockets of four kinds, listen and
 * dial by URL, whole-message send and receive.  Nothing above this file
 * includes <nng/nng.h>.
 *
 * URLs are nng's: ipc:///abs/path (keep under 107 bytes) or
 * tcp://127.0.0.1:PORT.  Dials are asynchronous with a fast reconnect
 * (10-50 ms), so a dial may precede its listener.
 */
#ifndef DN_TRANSPORT_H
#define DN_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

struct dn_sock;

enum dn_sock_type { DN_SOCK_PUSH, DN_SOCK_PULL, DN_SOCK_REQ, DN_SOCK_REP };

#define DN_EAGAIN	(-11)	/* would block / timed out */
#define DN_ECLOSED	(-7)	/* socket closed */

/* Open a socket of TYPE.  It takes no message over DN_MSG_MAX
 * (protocol.h): a longer frame closes its pipe once its length is read,
 * before anything is allocated for it.  On error returns -1 and sets
 * *CAUSE (caller frees). */
int	 dn_sock_open(struct dn_sock **sp, enum dn_sock_type type, char **cause);
/* Close and free S; accepts NULL. */
void	 dn_sock_close(struct dn_sock *s);
/* Close and free the N sockets of V (NULL entries skipped) at once: all
 * closes run together and are waited for under one deadline, so that N
 * sockets cost about one close, not N.  V itself stays the caller's. */
void	 dn_sock_close_all(struct dn_sock **v, size_t n);
/*
 * The process exits next: from now on dn_sock_close and dn_sock_close_all
 * leave the socket open, nothing torn down or freed, for the exit to
 * close.  nng 1.5 tears every pipe down through one reaper thread per
 * process: when 50 nodes stop at once, each node's ~100 pipes, closed
 * from both ends, queue there, and a node waited out the 2 s limit on
 * its own closes behind them (issue 26).  A last message still needs its
 * own wait before the close (the agent's final sample).
 */
void	 dn_sock_exiting(void);
/* 1 once an nng_close of this process did not return within its wait
 * (nng 1.5.2's deadlock, nanomsg/nng#1543): from then on closes are not
 * waited for, and nng may close nothing more. */
int	 dn_sock_close_wedged(void);

/* Listen on URL (for ipc://, a stale socket file is replaced). */
int	 dn_sock_listen(struct dn_sock *s, const char *url, char **cause);
/* Dial URL without waiting; reconnects by itself. */
int	 dn_sock_dial(struct dn_sock *s, const char *url, char **cause);
/*
 * 0 while nobody can be listening at URL yet: an ipc:// path that does
 * not exist (a listener makes it when it binds).  1 otherwise, and for
 * every other scheme, whose listener cannot be seen from here.  A dial
 * to an ipc path that is not there costs nng 1.5.2 a spinning poller
 * until its reaper frees the failed connection (issue 26): a caller
 * that knows a listener is coming dials once this says 1.
 */
int	 dn_sock_url_present(const char *url);

/* Send-buffer / receive-buffer depth in messages (push/pull). */
int	 dn_sock_set_bufs(struct dn_sock *s, int send_msgs, int recv_msgs);
/* Send and receive timeouts in ms (-1 = forever). */
int	 dn_sock_set_timeouts(struct dn_sock *s, int send_ms, int recv_ms);

/*
 * Send LEN bytes from BUF (copied).  With NONBLOCK, returns DN_EAGAIN
 * instead of waiting when no peer can take it.  Returns 0 or a negative
 * error (DN_EAGAIN, DN_ECLOSED, other).
 */
int	 dn_sock_send(struct dn_sock *s, const void *buf, size_t len,
	    int nonblock);
/*
 * Receive one message.  *BUFP is owned by the caller and released with
 * dn_msg_free(*BUFP, *LENP).  TIMEOUT_MS < 0 waits forever, 0 polls.
 * Returns 0, DN_EAGAIN (nothing within the timeout, or woken by
 * dn_sock_wake), DN_ECLOSED, or other negative error.
 */
int	 dn_sock_recv(struct dn_sock *s, void **bufp, size_t *lenp,
	    int timeout_ms);
/*
 * dn_sock_recv for TIMEOUT_MS > 0 in a loop that mostly times out: the
 * wait is a poll(2) on the socket's receive fd and an eventfd that
 * dn_sock_wake writes, so the kernel keeps the timeout.  nng 1.5's own
 * timer spins up to 1 ms for each timed receive that runs out (it
 * expires a deadline only once its millisecond clock has passed it):
 * ~0.8 % of a core at ten a second (docs/benchmarks.md, issue 26).  One
 * receiving thread per socket, as dn_sock_recv.  Returns as dn_sock_recv.
 */
int	 dn_sock_recv_idle(struct dn_sock *s, void **bufp, size_t *lenp,
	    int timeout_ms);
void	 dn_msg_free(void *buf, size_t len);
/*
 * End S's current or next dn_sock_recv at once with DN_EAGAIN, from
 * another thread (not from a signal handler): how a thread that waits in
 * a receive is told to look at its stop flag now rather than at its
 * timeout.  Accepts NULL.
 */
void	 dn_sock_wake(struct dn_sock *s);

/* Pipes (connections) currently attached to S. */
int	 dn_sock_npipes(struct dn_sock *s);
/*
 * From now on, every new pipe of S (a dial that connected, a peer that
 * dialled in) wakes TARGET (dn_sock_wake): a thread waiting in TARGET's
 * receive learns of the connection at once instead of polling for it.
 * TARGET must be closed after S; NULL stops it.
 */
void	 dn_sock_wake_on_pipe(struct dn_sock *s, struct dn_sock *target);

/*
 * Guard S, a listener anyone who can connect reaches (issue 38): from now
 * on at most MAX_PIPES pipes at a time, a pipe beyond that closed as nng
 * adds it (counted: dn_sock_guard_counts; it may have read one message),
 * and every pipe untrusted until the caller, having read a message from
 * it with the run token (dn_sock_recv_pipe), calls dn_sock_pipe_trust.
 * Call before dn_sock_listen.
 */
void	 dn_sock_guard(struct dn_sock *s, int max_pipes);
/* How often S's listener stopped taking connections and was opened
 * again (nng 1.5.2's ipc listener; metrics/wire/listen-watch.c).  Its
 * receiver does the watching: a guarded socket's receive calls. */
unsigned dn_sock_relistens(struct dn_sock *s);
/* A lower receive limit than DN_MSG_MAX (dn_sock_open), in bytes.  Call
 * before dn_sock_listen or dn_sock_dial. */
int	 dn_sock_set_recv_max(struct dn_sock *s, size_t bytes);
/* dn_sock_recv that also says through which pipe the message came
 * (*PIPE, nonzero; PIPE may be NULL). */
int	 dn_sock_recv_pipe(struct dn_sock *s, void **bufp, size_t *lenp,
	    uint32_t *pipe, int timeout_ms);
/* A guarded socket's PIPE showed the token: trusted from now on (also
 * one whose message came before nng told the guard of it). */
void	 dn_sock_pipe_trust(struct dn_sock *s, uint32_t pipe);
/* Of a guarded socket's PIPE: 1 trusted, 0 not yet, -1 gone, not known
 * yet (nng's ADD_POST to come) or closed by dn_sock_pipe_close, -2 gone
 * untrusted and counted so by dn_sock_guard_counts (a message of it read
 * now is not a new reject). */
int	 dn_sock_pipe_state(struct dn_sock *s, uint32_t pipe);
/* Close PIPE (a first message without the token): it sends nothing more,
 * and its end is not counted again by dn_sock_guard_counts, also when
 * its message came before nng told the guard of it (state -1 then). */
void	 dn_sock_pipe_close(struct dn_sock *s, uint32_t pipe);
/*
 * A guarded socket's counts so far: *REFUSED pipes closed at the cap,
 * *UNTRUSTED_GONE pipes that ended before the caller trusted them and
 * not by dn_sock_pipe_close: a frame over the receive limit (nng closes
 * the pipe), or a peer that connected and closed without a message.
 * Such a pipe is counted 200 ms after its end, when no message of it
 * (sent before the end, read after it) was trusted or closed by then.
 */
void	 dn_sock_guard_counts(struct dn_sock *s, uint64_t *refused,
	    uint64_t *untrusted_gone);

/* Text of a negative error from this module. */
const char *dn_sock_strerror(int err);

/* Sleep MS milliseconds. */
void	 dn_msleep(int ms);

#endif
