/*
 * test-devnet.c: three real devnet-node processes on ipc endpoints in a
 * temp dir, with a test collector (PULL) and load generator (PUSH TXS)
 * built on metrics/wire/transport.h.  200 transfers are all accounted for in
 * INCLUDED messages; all nodes reach the same height and state hash; a
 * SIGKILLed node restarts on its directory and catches up; garbage on the
 * wire is counted, not fatal; CTL_STOP and SIGTERM bring a final SAMPLE and
 * exit 0; samples keep their interval while the control loop has nothing
 * else to wake it (they are taken in that loop, whose own wait is 1 s
 * once ready); a
 * bad RocksDB options string is exit 1 with a clear message.  Every
 * process is killed in the teardown, also when an assertion fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "metric-table.h"
#include "protocol.h"
#include "transport.h"
#include "clock.h"
#include "xalloc.h"

#define NODES		3
#define TXS		200
#define TOKEN		0x0123456789abcdefull
#define ACCOUNTS	1000
#define SAMPLE_MS	250
#define GAPS_MAX	512

struct fixture {
	char		 dir[64];
	char		*node_bin;
	pid_t		 pid[NODES];
	struct dn_sock	*coll;
	struct dn_sock	*load[NODES];
	/* What the collector saw. */
	int		 hello[NODES];
	int		 final[NODES];
	int		 samples[NODES];
	/* intervals between a node's consecutive samples, in ms, while
	 * `timing` is set (nothing but the collector's reads) */
	int		 timing;
	uint64_t	 last_seq[NODES], last_ns[NODES];
	double		 gaps[GAPS_MAX];
	int		 ngaps;
	uint8_t		 seen[TXS + 1];	/* by tx id: 1 + status */
	int		 nseen;
};

static struct fixture *current;

static char *
url(struct fixture *f, const char *name)
{
	return (dn_xasprintf("ipc://%s/%s", f->dir, name));
}

static pid_t
spawn_node(struct fixture *f, int k, const char *extra, const char *errf)
{
	char	 idx[16], nodes[16], token[32], *dir, *coll;
	pid_t	 pid;

	snprintf(idx, sizeof(idx), "%d", k);
	snprintf(nodes, sizeof(nodes), "%d", NODES);
	snprintf(token, sizeof(token), "%016llx", (unsigned long long)TOKEN);
	dir = dn_xasprintf("%s/node-%d", f->dir, k);
	coll = url(f, "coll");
	pid = fork();
	if (pid == 0) {
		int	fd = open(errf != NULL ? errf : "/dev/null",
			    O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd >= 0) {
			dup2(fd, 2);
			dup2(fd, 1);
		}
		execl(f->node_bin, f->node_bin, "--index", idx, "--nodes",
		    nodes, "--dir", dir, "--net", f->dir, "--metrics", coll,
		    "--token", token, "--block-interval", "150",
		    "--sample-interval", "250" /* SAMPLE_MS */,
		    "--accounts", "1000",
		    "--block-reads", "4", extra != NULL ? extra : (char *)NULL,
		    extra != NULL ? "bogus=1" : (char *)NULL, (char *)NULL);
		_exit(127);
	}
	free(dir);
	free(coll);
	return (pid);
}

/* Handle one collector message; returns its kind or 0. */
static int
collect(struct fixture *f, int timeout_ms)
{
	struct dn_hdr		 h;
	struct dn_sample	 s;
	const uint8_t		*p, *e;
	uint64_t		 height, pns, id;
	uint32_t		 count, i;
	void			*msg;
	size_t			 len;
	int			 kind = 0;

	if (dn_sock_recv(f->coll, &msg, &len, timeout_ms) != 0)
		return (0);
	assert_int_equal(dn_hdr_check(msg, len, TOKEN, NODES, 0, &h), 0);
	p = (const uint8_t *)msg + DN_HDR_SIZE;
	kind = h.kind;
	switch (h.kind) {
	case DN_MSG_HELLO:
		assert_int_equal(h.len, DN_HELLO_SIZE);
		f->hello[h.node]++;
		break;
	case DN_MSG_SAMPLE:
		assert_int_equal(dn_sample_decode(p, h.len, &s), 0);
		assert_int_equal(s.count, DN_METRIC_COUNT);
		assert_true(s.values[DN_M_RSS_BYTES] > 0);
		assert_true(s.values[DN_M_THREADS] >= 3);
		assert_true(s.values[DN_M_FDS] > 3);
#ifdef DN_ALLOC_COUNT_EXPECTED
		assert_true(s.values[DN_M_ALLOCS] > 0);
		assert_false(dn_sample_absent(&s, DN_M_ALLOCS));
#else
		/* sanitizer builds: no counter, so absent, never a 0 */
		assert_true(dn_sample_absent(&s, DN_M_ALLOCS));
		assert_true(dn_sample_absent(&s, DN_M_HEAP_LIVE_BYTES));
		assert_false(dn_sample_absent(&s, DN_M_RSS_BYTES));
#endif
		f->samples[h.node]++;
		if (s.flags & DN_SAMPLE_FINAL)
			f->final[h.node]++;
		/* a restarted node counts from 1 again; the final sample
		 * is off the schedule */
		else if (f->timing && h.seq == f->last_seq[h.node] + 1 &&
		    h.seq > 1 && f->ngaps < GAPS_MAX)
			f->gaps[f->ngaps++] = (double)(h.t_ns -
			    f->last_ns[h.node]) / 1e6;
		f->last_seq[h.node] = h.seq;
		f->last_ns[h.node] = h.t_ns;
		break;
	case DN_MSG_INCLUDED:
		assert_int_equal(dn_included_check(p, h.len, &height, &pns,
		    &count, &e), 0);
		/* Only the proposer of a block reports it. */
		assert_int_equal(height % NODES, h.node);
		for (i = 0; i < count; i++) {
			id = dn_get_u64(e + (size_t)i * DN_INCL_ENTRY);
			assert_true(id >= 1 && id <= TXS);
			/* included at most once, ever */
			assert_int_equal(f->seen[id], 0);
			f->seen[id] = (uint8_t)(1 + dn_get_u32(e +
			    (size_t)i * DN_INCL_ENTRY + 16));
			f->nseen++;
		}
		break;
	default:
		fail_msg("unexpected message kind %u", h.kind);
	}
	dn_msg_free(msg, len);
	return (kind);
}

/* CTL_STOP to node K; 0 once the node acknowledged it. */
static int
ctl_stop(struct fixture *f, int k)
{
	struct dn_sock	*req;
	struct dn_hdr	 h = { .kind = DN_MSG_CTL_STOP, .token = TOKEN,
			    .node = DN_NODE_NONE, .seq = 9 };
	uint8_t		 buf[DN_HDR_SIZE];
	char		*u, *cause = NULL, name[32];
	void		*msg;
	size_t		 len;
	int		 rv = -1;

	snprintf(name, sizeof(name), "n%d.ctl", k);
	u = url(f, name);
	if (dn_sock_open(&req, DN_SOCK_REQ, &cause) != 0)
		fail_msg("%s", cause);
	dn_sock_dial(req, u, &cause);
	free(u);
	dn_sock_set_timeouts(req, 2000, 5000);
	dn_hdr_put(buf, &h);
	if (dn_sock_send(req, buf, sizeof(buf), 0) == 0 &&
	    dn_sock_recv(req, &msg, &len, 5000) == 0) {
		if (dn_hdr_check(msg, len, TOKEN, NODES, 0, &h) == 0 &&
		    h.kind == DN_MSG_CTL_STOP && h.seq == 9)
			rv = 0;
		dn_msg_free(msg, len);
	}
	dn_sock_close(req);
	return (rv);
}

static int
status(struct fixture *f, int k, int want_hash, struct dn_status *st)
{
	struct dn_sock	*req;
	struct dn_hdr	 h = { .kind = DN_MSG_CTL_STATUS, .token = TOKEN,
			    .node = DN_NODE_NONE, .len = 4, .seq = 1 };
	uint8_t		 buf[DN_HDR_SIZE + 4];
	char		*u, *cause = NULL, name[32];
	void		*msg;
	size_t		 len;
	int		 rv = -1;

	snprintf(name, sizeof(name), "n%d.ctl", k);
	u = url(f, name);
	if (dn_sock_open(&req, DN_SOCK_REQ, &cause) != 0)
		fail_msg("%s", cause);
	dn_sock_dial(req, u, &cause);
	free(u);
	dn_sock_set_timeouts(req, 2000, 5000);
	dn_hdr_put(buf, &h);
	dn_put_u32(buf + DN_HDR_SIZE, want_hash ? DN_CTL_WANT_HASH : 0);
	if (dn_sock_send(req, buf, sizeof(buf), 0) == 0 &&
	    dn_sock_recv(req, &msg, &len, 5000) == 0) {
		if (dn_hdr_check(msg, len, TOKEN, NODES, 0, &h) == 0 &&
		    h.kind == DN_MSG_CTL_STATUS)
			rv = dn_status_get((uint8_t *)msg + DN_HDR_SIZE,
			    h.len, st);
		dn_msg_free(msg, len);
	}
	dn_sock_close(req);
	return (rv);
}

/* Poll until all nodes report one height >= MIN with one state hash. */
static uint64_t
wait_converged(struct fixture *f, uint64_t min, int timeout_ms)
{
	struct dn_status	st[NODES];
	uint64_t		deadline = dn_now_ns() +
				    (uint64_t)timeout_ms * 1000000;
	int			k, same;

	while (dn_now_ns() < deadline) {
		same = 1;
		for (k = 0; k < NODES; k++) {
			if (status(f, k, 1, &st[k]) != 0)
				same = 0;
		}
		for (k = 1; k < NODES && same; k++)
			same = st[k].height == st[0].height;
		if (same && st[0].height >= min) {
			for (k = 1; k < NODES; k++)
				assert_memory_equal(st[k].state_hash,
				    st[0].state_hash, 32);
			return (st[0].height);
		}
		while (collect(f, 0) != 0)
			;
		dn_msleep(20);
	}
	fail_msg("nodes did not converge on one height >= %llu",
	    (unsigned long long)min);
	return (0);
}

/* Wait until node ONLY (or every node, if ONLY < 0) said HELLO WANT
 * times in all. */
static void
wait_hellos(struct fixture *f, int only, int want)
{
	uint64_t	deadline = dn_now_ns() + 20000000000ull;
	int		k, ok;

	for (;;) {
		ok = 1;
		for (k = 0; k < NODES; k++) {
			if (only < 0 || k == only)
				ok &= f->hello[k] >= want;
		}
		if (ok)
			return;
		if (dn_now_ns() > deadline)
			fail_msg("not every node said HELLO");
		collect(f, 100);
	}
}

static int
setup(void **state)
{
	struct fixture	*f = dn_xcalloc(1, sizeof(*f));
	const char	*bd = getenv("DN_BUILD_DIR");
	char		*u, *cause = NULL, name[32];
	int		 k;

	f->node_bin = dn_xasprintf("%s/bin/devnet-node", bd != NULL ? bd :
	    ".");
	snprintf(f->dir, sizeof(f->dir), "/tmp/dn-net-XXXXXX");
	if (mkdtemp(f->dir) == NULL)
		return (-1);
	current = f;
	u = url(f, "coll");
	if (dn_sock_open(&f->coll, DN_SOCK_PULL, &cause) != 0 ||
	    dn_sock_listen(f->coll, u, &cause) != 0) {
		fprintf(stderr, "%s\n", cause);
		return (-1);
	}
	free(u);
	dn_sock_set_bufs(f->coll, 0, 8192);
	for (k = 0; k < NODES; k++) {
		snprintf(name, sizeof(name), "n%d.in", k);
		u = url(f, name);
		dn_sock_open(&f->load[k], DN_SOCK_PUSH, &cause);
		dn_sock_dial(f->load[k], u, &cause);
		free(u);
	}
	*state = f;
	return (0);
}

static int
teardown(void **state)
{
	struct fixture	*f = *state;
	char		*cmd;
	int		 k;

	for (k = 0; k < NODES; k++) {
		if (f->pid[k] > 0) {
			kill(f->pid[k], SIGKILL);
			waitpid(f->pid[k], NULL, 0);
		}
		dn_sock_close(f->load[k]);
	}
	dn_sock_close(f->coll);
	/* DN_KEEP=1 keeps the run dir (logs) for a post-mortem. */
	cmd = dn_xasprintf("rm -rf '%s'", f->dir);
	if (getenv("DN_KEEP") == NULL)
		(void)!system(cmd);
	else
		fprintf(stderr, "kept %s\n", f->dir);
	free(cmd);
	free(f->node_bin);
	free(f);
	current = NULL;
	return (0);
}

static void
send_txs(struct fixture *f)
{
	uint8_t		buf[DN_HDR_SIZE + 8 + 10 * DN_TX_SIZE];
	struct dn_hdr	h = { .kind = DN_MSG_TXS, .token = TOKEN,
			    .node = DN_NODE_NONE };
	struct dn_tx	tx;
	int		m, i, id;

	for (m = 0; m < TXS / 10; m++) {
		h.len = 8 + 10 * DN_TX_SIZE;
		h.seq = (uint64_t)m + 1;
		h.t_ns = dn_now_ns();
		dn_hdr_put(buf, &h);
		dn_put_u32(buf + DN_HDR_SIZE, 10);
		dn_put_u32(buf + DN_HDR_SIZE + 4, 0);
		for (i = 0; i < 10; i++) {
			id = m * 10 + i;	/* 0..199 */
			tx = (struct dn_tx){ .id = (uint64_t)id + 1,
			    .intended_ns = dn_now_ns(),
			    .from = (uint32_t)(id % 40),
			    .to = (uint32_t)(500 + id),
			    .amount = 1 + (uint64_t)id,
			    .nonce = (uint64_t)(id / 40) };
			dn_tx_put(buf + DN_HDR_SIZE + 8 + i * DN_TX_SIZE, &tx);
		}
		assert_int_equal(dn_sock_send(f->load[m % NODES], buf,
		    sizeof(buf), 0), 0);
	}
}

static void
send_garbage(struct fixture *f)
{
	uint8_t		buf[200];
	struct dn_hdr	h = { .kind = DN_MSG_BLOCK, .token = TOKEN,
			    .node = 1, .len = 100 };
	int		i;

	for (i = 0; i < (int)sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 37);
	dn_sock_send(f->load[0], buf, 3, 0);		/* short */
	dn_sock_send(f->load[0], buf, sizeof(buf), 0);	/* bad magic */
	dn_hdr_put(buf, &h);
	dn_sock_send(f->load[0], buf, DN_HDR_SIZE + 100, 0); /* bad block */
	h.token = 1;
	dn_hdr_put(buf, &h);
	dn_sock_send(f->load[0], buf, DN_HDR_SIZE + 100, 0); /* bad token */
	h.token = TOKEN;
	h.kind = DN_MSG_TXS;
	h.len = 8;
	dn_hdr_put(buf, &h);
	memset(buf + DN_HDR_SIZE, 0xff, 8);		/* count 2^32-1 */
	dn_sock_send(f->load[0], buf, DN_HDR_SIZE + 8, 0);
}

static int
cmp_double(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return ((x > y) - (x < y));
}

/*
 * Samples on time: half the intervals or more within 5 ms of SAMPLE_MS.
 * Sampled only when the idle control loop's own wait ends they would be
 * 1 s apart (250 +- ~50 ms with the 100 ms poll it had before issue 26);
 * single late ones (a loaded machine) are shown, not judged.
 */
static void
check_gaps(struct fixture *f)
{
	double	med, p90, dev[GAPS_MAX];
	int	i;

	assert_true(f->ngaps >= 3 * NODES);
	for (i = 0; i < f->ngaps; i++)
		dev[i] = f->gaps[i] > SAMPLE_MS ? f->gaps[i] - SAMPLE_MS :
		    SAMPLE_MS - f->gaps[i];
	qsort(f->gaps, (size_t)f->ngaps, sizeof(double), cmp_double);
	qsort(dev, (size_t)f->ngaps, sizeof(double), cmp_double);
	med = f->gaps[f->ngaps / 2];
	p90 = dev[f->ngaps * 9 / 10];
	printf("sample intervals: %d, median %.2f ms (want %d), |off| median "
	    "%.2f ms, p90 %.2f ms, max %.2f ms\n", f->ngaps, med, SAMPLE_MS,
	    dev[f->ngaps / 2], p90, dev[f->ngaps - 1]);
	assert_true(dev[f->ngaps / 2] <= 5);
}

static void
devnet(void **state)
{
	struct fixture	*f = *state;
	struct dn_status st;
	uint64_t	 deadline, h1, h2;
	int		 k, status_code, ok = 0, id;
	char		*logf;

	for (k = 0; k < NODES; k++)
		f->pid[k] = spawn_node(f, k, NULL, NULL);
	wait_hellos(f, -1, 1);
	send_garbage(f);
	send_txs(f);
	deadline = dn_now_ns() + 30000000000ull;
	while (f->nseen < TXS && dn_now_ns() < deadline)
		collect(f, 100);
	assert_int_equal(f->nseen, TXS);
	for (id = 1; id <= TXS; id++)
		ok += f->seen[id] == 1 + DN_TX_OK;
	assert_int_equal(ok, TXS);
	h1 = wait_converged(f, 1, 20000);
	assert_int_equal(status(f, 0, 0, &st), 0);
	assert_int_equal(st.txs_applied, TXS);
	assert_true(st.flags & DN_CTL_READY);
	assert_int_equal(st.peers, NODES - 1);
	/* 2.5 s of nothing but samples: no control request wakes a
	 * node's control loop, only its own wait and its samples' due
	 * times */
	f->timing = 1;
	deadline = dn_now_ns() + 10ull * SAMPLE_MS * 1000000;
	while (dn_now_ns() < deadline)
		collect(f, 50);
	f->timing = 0;
	check_gaps(f);

	/* SIGKILL node 2 just after it proposed (height 2 mod 3): nodes 0
	 * and 1 add two blocks, then the chain stalls on node 2's turn.
	 * Restarted on its directory, node 2 fetches the two blocks it
	 * missed (HEAD, BLOCK_REQ), then proposes, and the chain moves on. */
	deadline = dn_now_ns() + 10000000000ull;
	do {
		assert_int_equal(status(f, 2, 0, &st), 0);
	} while (st.height % NODES != 2 && dn_now_ns() < deadline);
	assert_int_equal(st.height % NODES, 2);
	h1 = st.height;
	kill(f->pid[2], SIGKILL);
	waitpid(f->pid[2], NULL, 0);
	f->pid[2] = 0;
	dn_msleep(500);
	f->pid[2] = spawn_node(f, 2, NULL, NULL);
	wait_hellos(f, 2, 2);
	h2 = wait_converged(f, h1 + 3, 20000);
	assert_true(h2 >= h1 + 3);
	assert_int_equal(status(f, 2, 0, &st), 0);
	assert_int_equal(st.txs_applied, TXS);

	/* CTL_STOP (node 0) and SIGTERM (the others): a final sample from
	 * each, exit 0. */
	assert_int_equal(ctl_stop(f, 0), 0);
	for (k = 1; k < NODES; k++)
		kill(f->pid[k], SIGTERM);
	for (k = 0; k < NODES; k++) {
		assert_int_equal(waitpid(f->pid[k], &status_code, 0),
		    f->pid[k]);
		f->pid[k] = 0;
		assert_true(WIFEXITED(status_code));
		assert_int_equal(WEXITSTATUS(status_code), 0);
	}
	while (collect(f, 200) != 0)
		;
	for (k = 0; k < NODES; k++) {
		assert_int_equal(f->final[k], 1);
		assert_true(f->samples[k] >= 2);
	}
	logf = dn_xasprintf("%s/node-0/node.log", f->dir);
	{
		char	*cmd = dn_xasprintf("grep -q DN-NODE-REJECT '%s' && "
			    "grep -q DN-NODE-READY '%s' && grep -q "
			    "DN-NODE-STOP '%s'", logf, logf, logf);

		assert_int_equal(system(cmd), 0);
		free(cmd);
	}
	free(logf);
}

static void
bad_rocksdb_options(void **state)
{
	struct fixture	*f = *state;
	char		*errf, *cmd;
	int		 st;

	errf = dn_xasprintf("%s/err.txt", f->dir);
	f->pid[0] = spawn_node(f, 0, "--rocksdb-options", errf);
	assert_int_equal(waitpid(f->pid[0], &st, 0), f->pid[0]);
	f->pid[0] = 0;
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 1);
	cmd = dn_xasprintf("grep -q \"DN-NODE-ERROR bad RocksDB options "
	    "string 'bogus=1'\" '%s'", errf);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(errf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(devnet, setup, teardown),
		cmocka_unit_test_setup_teardown(bad_rocksdb_options, setup,
		    teardown),
	};

	signal(SIGPIPE, SIG_IGN);
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
