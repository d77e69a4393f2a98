/*
 * collector-ingest.c: issue 6 target 1, collector ingest end to end.
 *
 * Runs the real collector (orchestrator/collector.c) of a synthetic trial
 * on a fresh sqlite store and has SENDERS child processes, one per node
 * index, push real SAMPLE messages (metrics/wire/protocol.h) to it over ipc as
 * fast as they can.  The clock runs from "go" to the return of
 * collector_stop, which has decoded, validated, written and committed
 * every sample; the stored rows are then counted in the database.
 * Prints one line of key=value pairs:
 *
 *   senders msgs rows wall_s samples_per_s cpu_s cpu_ms_per_1000
 *   sender_cpu_s rejected lost
 *
 * cpu_s is the collector process (collector thread, nng's threads and
 * sqlite), excluding the sender processes (sender_cpu_s).
 *
 * usage: dn-collector-ingest-bench [-N] [-s SENDERS] [-m MSGS_PER_SENDER]
 *	    [-d DIR] [-S POLL_MS]
 * The senders write as devnet-node's metrics agent does, nng's SP framing
 * on a plain socket (metrics/wire/sp-push.c, since issue 26); -N: through
 * nng PUSH sockets instead, as the agent sent until then (each sender
 * process then runs nng's threads too).
 * -S: as under `devnet run --serve`: the collector publishes into a live
 * snapshot (trial/snapshot.c), the server (serve/) runs on a loopback
 * port, and a client process asks it every POLL_MS for what the live page
 * asks per second (/api/live, /metrics, three charts); the line adds
 * polls=N (answered requests).
 * DIR (default a mkdtemp dir under /tmp, removed) holds the database and
 * the ipc socket; keep it short (ipc paths are limited to 107 bytes).
 */
#include <sys/resource.h>
#include <sys/wait.h>

#include <netinet/in.h>
#include <sys/select.h>
#include <sys/socket.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "protocol.h"
#include "sp-push.h"
#include "trial/collector.h"
#include "store.h"
#include "transport.h"
#include "trial/trial.h"
#include "trial/trial-store.h"
#include "trial/snapshot.h"
#include "serve/serve.h"
#include "clock.h"
#include "xalloc.h"

struct opts {
	int		 senders;
	int		 msgs;
	const char	*dir;
	int		 poll_ms;	/* -S: 0 = no server */
	int		 nng;		/* -N: nng PUSH senders */
};

/* One GET of PATH on 127.0.0.1:PORT, the answer read whole: 1 if 200. */
static int
get(int port, const char *path)
{
	struct sockaddr_in	sa = { .sin_family = AF_INET,
				    .sin_port = htons((uint16_t)port) };
	char			buf[65536];
	ssize_t			n;
	int			fd, ok = 0, first = 1;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return (0);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		snprintf(buf, sizeof(buf), "GET %s HTTP/1.0\r\n\r\n", path);
		if (write(fd, buf, strlen(buf)) > 0) {
			while ((n = read(fd, buf, sizeof(buf) - 1)) > 0) {
				buf[n] = '\0';
				if (first)
					ok = strncmp(buf, "HTTP/1.1 200", 12) ==
					    0 || strncmp(buf, "HTTP/1.0 200",
					    12) == 0;
				first = 0;
			}
		}
	}
	close(fd);
	return (ok);
}

/* The client of -S: every POLL_MS what the live page asks, until a byte
 * (or EOF) on STOP_FD; exits with the number of answered requests / 8. */
static int
poller(int port, int poll_ms, int stop_fd)
{
	static const char *const paths[] = {
		"/api/live", "/metrics", "/chart.svg?metric=rss_bytes",
		"/chart.svg?metric=allocs", "/chart.svg?metric=height"
	};
	struct timeval	tv;
	fd_set		rf;
	int		ok = 0, i;

	for (;;) {
		for (i = 0; i < 5; i++)
			ok += get(port, paths[i]);
		FD_ZERO(&rf);
		FD_SET(stop_fd, &rf);
		tv.tv_sec = poll_ms / 1000;
		tv.tv_usec = (poll_ms % 1000) * 1000;
		if (select(stop_fd + 1, &rf, NULL, NULL, &tv) != 0)
			break;
	}
	return (ok / 8 > 255 ? 255 : ok / 8);
}

/* Samples of node-sourced metrics: the rows one message stores. */
static int
node_metrics(void)
{
	int	i, n = 0;

	for (i = 0; i < DN_METRIC_COUNT; i++)
		n += dn_metric_defs[i].source == DN_SOURCE_N;
	return (n);
}

/* What a sender writes with: the node's metrics agent's own connection
 * (sp-push.h, since issue 26's fourth round), or with -N an nng PUSH
 * socket, as the agent sent before. */
struct conn {
	struct dn_sppush	*push;
	struct dn_sock		*sock;
};

static int
conn_dial(struct conn *cn, const char *url, int nng, char **cause)
{
	int	k;

	if (nng) {
		if (dn_sock_open(&cn->sock, DN_SOCK_PUSH, cause) != 0)
			return (-1);
		dn_sock_set_bufs(cn->sock, 1024, 0);
		if (dn_sock_dial(cn->sock, url, cause) != 0)
			return (-1);
		for (k = 0; k < 10000 && dn_sock_npipes(cn->sock) == 0; k++)
			usleep(1000);
		return (0);
	}
	/* the agent's: 512 KiB held while the socket is full */
	if (dn_sppush_open(&cn->push, url, 512u << 10, cause) != 0)
		return (-1);
	for (k = 0; k < 10000 && !dn_sppush_connected(cn->push); k++)
		usleep(1000);
	return (0);
}

/* Send LEN bytes of BUF, waiting for room as long as it takes. */
static int
conn_send(struct conn *cn, const void *buf, size_t len)
{
	if (cn->sock != NULL)
		return (dn_sock_send(cn->sock, buf, len, 0));
	return (dn_sppush_send(cn->push, buf, len, 60000));
}

/*
 * One sender: open its socket, wait for a byte on DIAL_FD, dial URL and
 * wait until connected, say so with a byte on READY_FD, wait for the go
 * byte on GO_FD, push MSGS samples of node NODE with sequence 0..MSGS-1
 * and t = T0 + (k+1) ms (the samples table keys on t_ms), the last one
 * flagged final; then wait for DONE_FD to reach end of file.
 */
static int
sender(const char *url, uint64_t token, int node, int msgs, uint64_t t0,
    int nng, int dial_fd, int go_fd, int ready_fd, int done_fd)
{
	struct conn		 cn = { NULL, NULL };
	struct dn_sample	 s;
	struct dn_hdr		 h;
	uint8_t			 buf[DN_HDR_SIZE + 8 + DN_SAMPLE_MAX * 8];
	char			*cause = NULL, go;
	size_t			 len;
	int			 k, i, rv = 1;

	/* Connection before the clock, as a node has it before t=0: a
	 * node's start is not ingest.  The dial waits for the collector to
	 * listen (DIAL_FD): an nng dial made before spins in nng 1.5.2's
	 * poller, seconds of CPU per sender. */
	if (read(dial_fd, &go, 1) != 1)
		goto out;
	if (conn_dial(&cn, url, nng, &cause) != 0) {
		fprintf(stderr, "sender %d: %s\n", node, cause);
		free(cause);
		goto out;
	}
	if (write(ready_fd, "r", 1) != 1 || read(go_fd, &go, 1) != 1)
		goto out;
	memset(&s, 0, sizeof(s));
	s.count = DN_METRIC_COUNT;
	memset(&h, 0, sizeof(h));
	h.kind = DN_MSG_SAMPLE;
	h.token = token;
	h.node = (uint32_t)node;
	for (k = 0; k < msgs; k++) {
		for (i = 0; i < DN_METRIC_COUNT; i++)
			s.values[i] = (double)(k * 7 + i + node);
		s.flags = k == msgs - 1 ? DN_SAMPLE_FINAL : 0;
		h.seq = (uint64_t)k;
		h.t_ns = t0 + (uint64_t)(k + 1) * 1000000u;
		len = dn_sample_encode(buf, sizeof(buf), &h, &s);
		if (len == 0 || conn_send(&cn, buf, len) != 0) {
			fprintf(stderr, "sender %d: send failed\n", node);
			goto out;
		}
	}
	/* what the agent's connection still holds goes out before the
	 * wait; closing either drops what is still queued: wait for the
	 * parent to close the pipe (the collector has every final sample
	 * by then) */
	if (cn.push != NULL && dn_sppush_flush(cn.push, 60000) != 0) {
		fprintf(stderr, "sender %d: flush failed\n", node);
		goto out;
	}
	while (read(done_fd, &go, 1) > 0)
		;
	rv = 0;
out:
	dn_sock_close(cn.sock);
	dn_sppush_close(cn.push);
	return (rv);
}

static int
count_row(void *arg, int ncols, const char *const *names,
    const char *const *values, const int *types)
{
	*(long long *)arg = ncols > 0 && values[0] != NULL ?
	    atoll(values[0]) : 0;
	return (0);
}

static double
tv_s(struct timeval tv)
{
	return ((double)tv.tv_sec + (double)tv.tv_usec / 1e6);
}

static int
usage(void)
{
	fprintf(stderr, "usage: dn-collector-ingest-bench [-N] [-s SENDERS] "
	    "[-m MSGS_PER_SENDER] [-d DIR] [-S POLL_MS]\n");
	return (2);
}

/* -S: the snapshot, the server on a free loopback port, the client
 * process (its stop pipe in *POLL_FD). */
static int
serve_begin(struct trial *t, const struct opts *o, struct snapshot **snap,
    struct serve **srv, pid_t *pid, int *poll_fd, char **cause)
{
	static struct plan_trial	pt;
	int				port, p[2];

	pt.variant = t->var;
	*snap = snapshot_new();
	snapshot_plan(*snap, t->scn->name, 1, &pt, 1, t->scn->duration_ms,
	    0, t->scn->sample_interval_ms);
	t->pt = pt;
	snapshot_trial_begin(*snap, t);
	if (serve_start(srv, "127.0.0.1:0", *snap, NULL, cause) != 0)
		return (-1);
	port = atoi(strrchr(serve_url(*srv), ':') + 1);
	if (pipe(p) != 0 || (*pid = fork()) == -1) {
		*cause = dn_xstrdup("pipe or fork failed");
		return (-1);
	}
	if (*pid == 0) {
		int	fd;

		/* nothing of the parent's but the stop pipe: the senders
		 * wait for EOF on a pipe the parent closes */
		for (fd = 3; fd < 1024; fd++)
			if (fd != p[0])
				close(fd);
		_exit(poller(port, o->poll_ms, p[0]));
	}
	close(p[0]);
	*poll_fd = p[1];
	snapshot_trial_start(t);
	return (0);
}

int
main(int argc, char **argv)
{
	struct opts		 o = { 10, 3000, NULL, 0, 0 };
	struct scenario		 scn;
	struct scn_variant	 var;
	struct trial		 t;
	struct dn_run_info	 ri;
	struct collector	*col = NULL;
	struct rusage		 ru0, ru1, ruc;
	struct dn_store		*store = NULL;
	char			 tmpl[] = "/tmp/dn-ci-XXXXXX", *dir, *db = NULL;
	char			*cause = NULL, run_id[32];
	const char		*params[1];
	pid_t			*pids = NULL;
	uint64_t		 go_ns, end_ns;
	long long		 rows = 0;
	double			 wall, cpu;
	int			 c, i, fds[2] = { -1, -1 }, status, rv = 1;
	int			 done[2] = { -1, -1 }, ready[2] = { -1, -1 };
	int			 dial[2] = { -1, -1 };
	int			 own_dir = 0, poll_fd = -1, polls = 0;
	pid_t			 poll_pid = 0;
	struct snapshot		*snap = NULL;
	struct serve		*srv = NULL;

	while ((c = getopt(argc, argv, "Ns:m:d:S:")) != -1) {
		switch (c) {
		case 'N':
			o.nng = 1;
			break;
		case 'S':
			o.poll_ms = atoi(optarg);
			break;
		case 's':
			o.senders = atoi(optarg);
			break;
		case 'm':
			o.msgs = atoi(optarg);
			break;
		case 'd':
			o.dir = optarg;
			break;
		default:
			return (usage());
		}
	}
	if (optind != argc || o.senders < 1 || o.senders > 256 ||
	    o.msgs < 1) {
		fprintf(stderr, "dn-collector-ingest-bench: -s must be 1..256 "
		    "and -m at least 1\n");
		return (usage());
	}
	if (o.dir != NULL)
		dir = (char *)o.dir;
	else if ((dir = mkdtemp(tmpl)) == NULL) {
		fprintf(stderr, "dn-collector-ingest-bench: mkdtemp: %s\n",
		    strerror(errno));
		return (1);
	} else
		own_dir = 1;

	memset(&scn, 0, sizeof(scn));
	memset(&var, 0, sizeof(var));
	memset(&t, 0, sizeof(t));
	scn.name = (char *)"bench-collector-ingest";
	scn.duration_ms = (int64_t)o.msgs + 1000;
	scn.sample_interval_ms = 1000;
	scn.network.nodes = o.senders;
	var.name = (char *)"A";
	t.scn = &scn;
	t.var = &var;
	t.nnodes = o.senders;
	t.token = 0x62656e6368ull;
	t.run_dir = dir;
	t.net_dir = dir;
	t.metrics_url = dn_xasprintf("ipc://%s/collector", dir);
	t.nodes = dn_xcalloc((size_t)o.senders, sizeof(*t.nodes));
	pthread_mutex_init(&t.mu, NULL);
	go_ns = dn_now_ns();
	atomic_init(&t.t0_ns, go_ns);

	/* Senders first, before this process has any nng socket. */
	if (pipe(fds) != 0 || pipe(done) != 0 || pipe(ready) != 0 ||
	    pipe(dial) != 0) {
		fprintf(stderr, "dn-collector-ingest-bench: pipe: %s\n",
		    strerror(errno));
		goto out;
	}
	pids = dn_xcalloc((size_t)o.senders, sizeof(*pids));
	for (i = 0; i < o.senders; i++) {
		if ((pids[i] = fork()) == -1) {
			fprintf(stderr, "dn-collector-ingest-bench: fork: "
			    "%s\n", strerror(errno));
			goto out;
		}
		if (pids[i] == 0) {
			close(fds[1]);
			close(done[1]);
			close(ready[0]);
			close(dial[1]);
			_exit(sender(t.metrics_url, t.token, i, o.msgs,
			    go_ns, o.nng, dial[0], fds[0], ready[1],
			    done[0]));
		}
	}
	close(fds[0]);
	fds[0] = -1;
	close(done[0]);
	done[0] = -1;
	close(ready[1]);
	ready[1] = -1;
	close(dial[0]);
	dial[0] = -1;

	db = dn_xasprintf("%s/ingest.db", dir);
	if (dn_store_open(&store, db, 0, &cause) != 0)
		goto fail;
	t.store = trial_store_new(store);
	memset(&ri, 0, sizeof(ri));
	ri.scenario_name = scn.name;
	ri.scenario_path = "-";
	ri.scenario_yaml = "";
	ri.variant = var.name;
	ri.binary = argv[0];
	ri.binary_sha256 = "-";
	ri.run_dir = dir;
	ri.nodes = o.senders;
	ri.duration_ms = scn.duration_ms;
	ri.sample_interval_ms = scn.sample_interval_ms;
	ri.token = t.token;
	if (trial_store_run_begin(&t, &ri, &cause) != 0)
		goto fail;
	if (o.poll_ms > 0 && serve_begin(&t, &o, &snap, &srv, &poll_pid,
	    &poll_fd, &cause) != 0)
		goto fail;
	if (collector_start(&t, &col, &cause) != 0)
		goto fail;
	/* The collector listens: every sender dials, and says when it is
	 * connected, before the clock starts (the dial and the go on two
	 * pipes: a sender quick to connect must not take another's dial
	 * byte for its go). */
	for (i = 0; i < o.senders; i++)
		if (write(dial[1], "d", 1) != 1)
			break;
	for (i = 0; i < o.senders; i++) {
		char	r;

		if (read(ready[0], &r, 1) != 1)
			break;
	}

	getrusage(RUSAGE_SELF, &ru0);
	go_ns = dn_now_ns();
	for (i = 0; i < o.senders; i++) {
		if (write(fds[1], "g", 1) != 1)
			break;
	}
	/* Drains until every sender's final sample is in, then commits. */
	collector_stop(col, 120000);
	col = NULL;
	end_ns = dn_now_ns();
	getrusage(RUSAGE_SELF, &ru1);
	close(done[1]);
	done[1] = -1;
	for (i = 0; i < o.senders; i++) {
		status = 0;
		if (waitpid(pids[i], &status, 0) == pids[i])
			pids[i] = 0;
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			fprintf(stderr, "dn-collector-ingest-bench: sender %d "
			    "failed (%s %d)\n", i, WIFEXITED(status) ?
			    "exit" : "signal", WIFEXITED(status) ?
			    WEXITSTATUS(status) : WTERMSIG(status));
	}
	getrusage(RUSAGE_CHILDREN, &ruc);	/* senders only: before the
						   poller is reaped */
	if (poll_pid > 0) {
		close(poll_fd);
		status = 0;
		waitpid(poll_pid, &status, 0);
		polls = WIFEXITED(status) ? WEXITSTATUS(status) * 8 : -1;
		serve_stop(srv);
		snapshot_free(snap);
	}

	snprintf(run_id, sizeof(run_id), "%lld", (long long)t.run_id);
	params[0] = run_id;
	if (dn_store_query(store, "SELECT count(*) FROM samples WHERE "
	    "run_id = ?1", params, 1, count_row, &rows, &cause) != 0)
		goto fail;
	if (t.store_failed) {
		fprintf(stderr, "dn-collector-ingest-bench: store: %s\n",
		    t.store_error);
		goto out;
	}
	wall = (double)(end_ns - go_ns) / 1e9;
	cpu = tv_s(ru1.ru_utime) + tv_s(ru1.ru_stime) -
	    tv_s(ru0.ru_utime) - tv_s(ru0.ru_stime);
	printf("senders=%d msgs=%lld rows=%lld expected=%lld wall_s=%.3f "
	    "samples_per_s=%.0f cpu_s=%.3f cpu_ms_per_1000=%.4f "
	    "sender_cpu_s=%.3f rejected=%lld polls=%d\n", o.senders,
	    (long long)o.senders * o.msgs, rows,
	    (long long)o.senders * o.msgs * node_metrics(), wall,
	    (double)rows / wall, cpu, cpu * 1e6 / (double)rows,
	    tv_s(ruc.ru_utime) + tv_s(ruc.ru_stime), (long long)t.rejected,
	    polls);
	rv = rows == (long long)o.senders * o.msgs * node_metrics() ? 0 : 1;
	if (rv != 0)
		fprintf(stderr, "dn-collector-ingest-bench: stored %lld rows, "
		    "expected %lld\n", rows,
		    (long long)o.senders * o.msgs * node_metrics());
	goto out;
fail:
	fprintf(stderr, "dn-collector-ingest-bench: %s\n", cause);
	free(cause);
out:
	collector_stop(col, 0);
	if (pids != NULL) {
		for (i = 0; i < o.senders; i++) {
			if (pids[i] > 0) {
				kill(pids[i], SIGKILL);
				waitpid(pids[i], NULL, 0);
			}
		}
	}
	for (i = 0; i < 2; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		if (done[i] >= 0)
			close(done[i]);
		if (ready[i] >= 0)
			close(ready[i]);
		if (dial[i] >= 0)
			close(dial[i]);
	}
	trial_store_free(t.store);
	dn_store_close(store);
	if (own_dir && db != NULL) {
		char	*p;

		unlink(db);
		p = dn_xasprintf("%s-wal", db);
		unlink(p);
		free(p);
		p = dn_xasprintf("%s-shm", db);
		unlink(p);
		free(p);
		p = dn_xasprintf("%s/collector", dir);
		unlink(p);
		free(p);
		rmdir(dir);
	}
	free(db);
	free(pids);
	free(t.nodes);
	free(t.metrics_url);
	pthread_mutex_destroy(&t.mu);
	return (rv);
}
