/*
 * node.c: devnet-node, a RocksDB storage node that takes part in a devnet
 * (docs/node.md).  This file is the process: main (log file, signals,
 * the control loop on the main thread), start and finish.  The command
 * line is in args.c, the log line in log.c, sockets in net.c, the chain
 * thread in chain-thread.c, gossip.c and sync.c, control requests in
 * control.c, metrics samples in fill-metrics.c.  The rules live in
 * chain.c, the storage in rocks.c, side workloads in workload.c.
 *
 * Threads: main (control REP socket, readiness, the metrics agent's
 * samples), chain (PULL socket, all chain and mempool state), the signal
 * thread, and at most one workload worker.  They share only atomics, the
 * log (a mutex) and the thread-safe parts of the store and the sockets.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent.h"
#include "alloc.h"
#include "chain.h"
#include "clock.h"
#include "node-internal.h"
#include "rocks.h"
#include "transport.h"
#include "xalloc.h"
#include "workload.h"

#define CTL_POLL_MS	100	/* after a failed control receive */
#define READY_POLL_MS	10	/* until ready, besides the pipes' wakes */
#define DIAL_POLL_MS	2	/* while a peer's listener is not there */
#define IDLE_WAIT_MS	1000	/* once ready: see the control loop */
#define GONE_MS		3000	/* no collector this long: devnet is gone */

static atomic_int got_signal;

/*
 * 1 once the collector, reached before, has had no connection for
 * GONE_MS: devnet is gone (SIGKILLed; a container's node has no death
 * signal to tell it), and nobody will stop this node (issue 19).
 */
static int
devnet_gone(struct node *n)
{
	static int	 seen;
	static uint64_t	 since;
	uint64_t	 now = dn_now_ns();

	if (n->agent == NULL || dn_agent_connected(n->agent)) {
		seen = n->agent != NULL;
		since = 0;
		return (0);
	}
	if (!seen)
		return (0);
	if (since == 0)
		since = now;
	return (now - since >= GONE_MS * 1000000ull);
}

/*
 * The thread that takes SIGTERM and SIGINT (blocked in every other
 * thread): it notes the signal and wakes the control loop out of its
 * receive, so that the node stops now and not when the receive times
 * out (up to IDLE_WAIT_MS later; issue 26).  A handler could only set the
 * flag: waking an nng receive is not async-signal-safe.
 */
static void *
signal_main(void *arg)
{
	struct node	*n = arg;
	sigset_t	 set;
	int		 sig;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	if (sigwait(&set, &sig) == 0) {
		atomic_store(&got_signal, sig);
		dn_sock_wake(n->ctl);
	}
	return (NULL);
}

static int
start(struct node *n, char **cause)
{
	struct store_config	 sc;
	struct chain_config	 cc;
	struct workload_config	 wc;
	struct dn_agent_config	 ac;
	struct store_cf_options	*cfo = NULL;
	char			*dbdir;
	uint32_t		 k;
	int			 rv;

	/* Listen and dial the peers first: their pipes come up while
	 * RocksDB opens (60-90 ms), instead of the last node's listener
	 * being dialled only by the peers' next redial, up to 50 ms after
	 * it (issue 26).  Nothing reads IN or the control socket before
	 * start() returns; what arrives waits in their queues. */
	if (open_sockets(n, cause) != 0)
		return (-1);
	memset(&sc, 0, sizeof(sc));
	dbdir = dn_xasprintf("%s/db", n->o.dir);
	sc.path = dbdir;
	sc.options = n->o.rocksdb_options;
	sc.block_cache = n->o.block_cache;
	sc.read_mode = n->o.read_mode;
	sc.write_mode = n->o.write_mode;
	rv = store_open(&n->store, &sc, cause);
	free(dbdir);
	if (rv != 0)
		return (-1);

	memset(&cc, 0, sizeof(cc));
	cc.nodes = n->o.nodes;
	cc.accounts = n->o.accounts;
	cc.seed = n->o.seed;
	cc.block_reads = n->o.block_reads;
	cc.keys = n->o.keys;
	if (chain_open(&n->chain, n->store, &cc, cause) != 0)
		return (-1);
	/* the peers that listened while RocksDB opened */
	if (dial_peers(n, cause) != 0)
		return (-1);
	n->peer_height = dn_xcalloc(n->o.nodes, sizeof(uint64_t));
	n->peer_head_ns = dn_xcalloc(n->o.nodes, sizeof(uint64_t));
	n->clock_d = dn_xcalloc(n->o.nodes, sizeof(int64_t));
	n->clock_known = dn_xcalloc(n->o.nodes, 1);
	n->clock_other = dn_xcalloc(n->o.nodes, 1);
	if (n->gossip)
		n->tx_seen = dn_xcalloc(TX_SEEN_SLOTS, sizeof(uint64_t));
	/* Peers at other addresses are on other hosts, with other clocks
	 * (sync.c, clock_seen) -- unless this node has an ipc dir (--net):
	 * then the orchestrator, and so every node, is on this host, and
	 * the addresses are an emulated network's namespaces (issue 20).
	 * Estimating an offset there took the links' one-way delay for a
	 * clock difference and hid it from lag_ms and block_prop_ms. */
	for (k = 0; n->o.peer_hosts != NULL && n->o.net == NULL &&
	    k < n->o.nodes; k++)
		n->clock_other[k] = strcmp(n->o.peer_hosts[k],
		    n->o.peer_hosts[n->o.index]) != 0;
	n->propose_at_ns = UINT64_MAX;
	publish_state(n);

	if (n->o.metrics != NULL) {
		memset(&ac, 0, sizeof(ac));
		ac.url = n->o.metrics;
		ac.token = n->o.token;
		ac.node = n->o.index;
		ac.interval_ms = (int)n->o.sample_ms;
		ac.fill = fill_metrics;
		ac.arg = n;
		if (dn_agent_start(&n->agent, &ac, cause) != 0)
			return (-1);
	}

	if (n->o.workload == WL_CF_CHURN &&
	    store_cf_options_parse(n->store, n->o.cf_options, &cfo,
	    cause) != 0)
		return (-1);
	memset(&wc, 0, sizeof(wc));
	wc.kind = n->o.workload;
	wc.store = n->store;
	wc.seed = n->o.seed;
	wc.keys = n->o.keys;
	wc.accounts = n->o.accounts;
	wc.rate = n->o.read_rate;
	wc.reads = n->o.reads;
	wc.cf_count = n->o.cf_count;
	wc.cf_cycles = n->o.cf_cycles;
	wc.cf_options = cfo;
	n->cfo = cfo;
	if (workload_start(&n->wl, &wc, cause) != 0)
		return (-1);

	if (pthread_create(&n->chain_thread, NULL, chain_main, n) != 0) {
		*cause = dn_xasprintf("cannot start the chain thread: %s",
		    strerror(errno));
		return (-1);
	}
	n->chain_started = 1;
	return (0);
}

/* Stop everything START started, in reverse order; safe on a partial
 * start. */
static void
finish(struct node *n)
{
	char	*summary = NULL, *error = NULL;
	size_t	 i;

	atomic_store(&n->stop, 1);
	/* This process exits next: its sockets' closes are not waited for
	 * (issue 26, the 50-node stop; transport.h) */
	dn_sock_exiting();
	/* out of its receive now, not at its timeout (up to 100 ms) */
	dn_sock_wake(n->in);
	if (n->chain_started)
		pthread_join(n->chain_thread, NULL);
	n->chain_started = 0;
	if (n->wl != NULL) {
		workload_stop(n->wl, &summary, &error);
		n->wl = NULL;
		if (error != NULL)
			nlog(n, "DN-NODE-WORKLOAD-ERROR", "%s: first error: "
			    "%s", workload_name(n->o.workload), error);
		if (summary != NULL) {
			printf("%s\n", summary);
			fflush(stdout);
			nlog(n, "DN-NODE-WORKLOAD", "%s", summary);
		}
		free(summary);
		free(error);
	}
	/* The final sample goes out while the store is still open. */
	dn_agent_stop(n->agent);
	n->agent = NULL;
	close_sockets(n);
	store_cf_options_free(n->cfo);
	n->cfo = NULL;
	chain_free(n->chain);
	n->chain = NULL;
	store_close(n->store);
	n->store = NULL;
	for (i = 0; i < BUFFER_SLOTS; i++)
		free(n->buf[i].p);
	free(n->status);
	free(n->peer_height);
	free(n->peer_head_ns);
	free(n->clock_d);
	free(n->clock_known);
	free(n->clock_other);
	free(n->tx_seen);
}

/*
 * The control loop, until a signal, devnet gone or a halt: peers dialled
 * as they come to listen, readiness, the metrics agent's samples and the
 * control requests, one receive a turn.
 */
static void
control_loop(struct node *n)
{
	char	*cause = NULL;
	void	*msg;
	size_t	 len;
	int	 rv, wait, due;

	while (!atomic_load(&n->stop)) {
		int	sig = atomic_load(&got_signal);

		if (sig != 0) {
			nlog(n, "DN-NODE-SIGNAL", "%s: stopping",
			    sig == SIGTERM ? "SIGTERM" : "SIGINT");
			break;
		}
		if (devnet_gone(n)) {
			nlog(n, "DN-NODE-SIGNAL", "no collector for %d ms: "
			    "devnet is gone, stopping", GONE_MS);
			break;
		}
		if (n->dials_pending > 0 && dial_peers(n, &cause) != 0) {
			nlog(n, "DN-NODE-ERROR", "%s", cause);
			free(cause);
			cause = NULL;
		}
		check_ready(n);
		/* Until ready, every new peer pipe wakes this receive
		 * (net.c), so that the HELLO leaves as soon as the last one
		 * connects, not up to IDLE_WAIT_MS later (issue 26); the
		 * collector's connection is made on this thread (the agent:
		 * at once when it listens, else tried again each turn), and
		 * READY_POLL_MS is the fallback (a HELLO that could not be
		 * sent, a collector not listening yet). */
		/* Once ready, what needs this loop wakes it (a control
		 * request, the signal thread, a pipe), and what it checks by
		 * time, devnet_gone, is good to a second; a shorter wait is
		 * a wake for nothing.  The wait is a poll(2), not nng's
		 * timer, which spins up to 1 ms for every timed receive that
		 * runs out: ~0.8 % of a core at 10 a second
		 * (dn_sock_recv_idle; docs/benchmarks.md, issue 26). */
		wait = atomic_load(&n->ready) ? IDLE_WAIT_MS : READY_POLL_MS;
		if (n->dials_pending > 0)
			wait = DIAL_POLL_MS;
		/* The metrics agent samples here, on a wake this loop has
		 * anyway: no thread of its own to wake (issue 26). */
		if (n->agent != NULL && (due = dn_agent_tick(n->agent)) < wait)
			wait = due;
		rv = dn_sock_recv_idle(n->ctl, &msg, &len, wait);
		if (rv == 0) {
			on_control(n, msg, len);
			dn_msg_free(msg, len);
		} else if (rv != DN_EAGAIN) {
			nlog(n, "DN-NODE-ERROR", "control receive failed: %s",
			    dn_sock_strerror(rv));
			dn_msleep(CTL_POLL_MS);
		}
	}
}

int
main(int argc, char **argv)
{
	struct node		 n;
	sigset_t		 sigs;
	pthread_t		 sigthread;
	char			*logpath, *cause = NULL;
	int			 code = 0, sigthread_on = 0;
	uint32_t		 i;

	memset(&n, 0, sizeof(n));
	parse_args(argc, argv, &n.o);
	n.logfd = -1;
	pthread_mutex_init(&n.loglock, NULL);
	atomic_init(&n.stop, 0);
	atomic_init(&n.ready, 0);
	atomic_init(&n.halted, 0);

	/* Blocked before any thread starts, so that every thread (nng's and
	 * RocksDB's too) inherits the mask and only signal_main takes them;
	 * one that comes during the start waits for it. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (mkdir(n.o.dir, 0700) != 0 && errno != EEXIST) {
		fprintf(stderr, "DN-NODE-ERROR cannot create directory "
		    "'%s': %s\n", n.o.dir, strerror(errno));
		return (1);
	}
	logpath = n.o.log != NULL ? dn_xstrdup(n.o.log) :
	    dn_xasprintf("%s/node.log", n.o.dir);
	n.logfd = open(logpath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
	    0644);
	if (n.logfd == -1) {
		fprintf(stderr, "DN-NODE-ERROR cannot open log file '%s': "
		    "%s\n", logpath, strerror(errno));
		free(logpath);
		return (1);
	}
	free(logpath);
	n.in_url = endpoint(&n.o, n.o.index, 0);
	n.ctl_url = endpoint(&n.o, n.o.index, 1);
	nlog(&n, "DN-NODE-START", "index=%u nodes=%u dir=%s workload=%s "
	    "read-options=%s write-options=%s alloc-counter=%s pid=%d",
	    n.o.index, n.o.nodes,
	    n.o.dir, workload_name(n.o.workload),
	    n.o.read_mode == STORE_CACHED ? "cached" : "per-call",
	    n.o.write_mode == STORE_CACHED ? "cached" : "per-call",
	    dn_alloc_enabled() ? "on" : "off", (int)getpid());

	if (start(&n, &cause) != 0) {
		nlog(&n, "DN-NODE-ERROR", "%s", cause);
		free(cause);
		code = 1;
		goto out;
	}
	if (pthread_create(&sigthread, NULL, signal_main, &n) != 0) {
		nlog(&n, "DN-NODE-ERROR", "cannot start the signal thread: %s",
		    strerror(errno));
		code = 1;
		goto out;
	}
	sigthread_on = 1;
	control_loop(&n);
out:
	/* the signal thread wakes the control socket: gone before it is */
	if (sigthread_on) {
		pthread_cancel(sigthread);
		pthread_join(sigthread, NULL);
	}
	finish(&n);
	if (code == 0)
		nlog(&n, "DN-NODE-STOP", "height=%" PRIu64 " clean stop",
		    (uint64_t)atomic_load(&n.height));
	close(n.logfd);
	free(n.in_url);
	free(n.ctl_url);
	for (i = 0; n.o.peer_hosts != NULL && i < n.o.nodes; i++)
		free(n.o.peer_hosts[i]);
	free(n.o.peer_hosts);
	free(n.o.peer_list);
	pthread_mutex_destroy(&n.loglock);
	return (code);
}
