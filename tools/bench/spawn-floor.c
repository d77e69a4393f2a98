/*
 * spawn-floor.c: the floor devnet's start and stop are judged against
 * (issue 26): what this machine needs to fork+exec N children that each
 * open a fresh RocksDB directory and say hello over nng, and to stop them
 * again.  tools/bench/spawn-stop.sh runs it beside devnet in the same
 * window.
 *
 *   dn-spawn-floor [--quiet] DIR NODES ROUNDS
 *
 * Each round: a PULL socket listens on ipc://DIR/floor.ipc; NODES copies
 * of this program are forked and exec'd (--child DIR/rR-K URL), each opens
 * RocksDB there (create_if_missing, the library's defaults), dials, sends
 * one hello (its pid) and waits for SIGTERM; then it closes the database
 * and the socket and exits 0.  The parent prints per round
 *
 *   floor round R: N children ready in X ms; stopped in Y ms
 *
 * ready = first fork to the last hello received; stopped = the SIGTERMs
 * to the last child reaped.  Nothing of devnet is in it (no agent, no
 * allocation counter, no peers, no genesis, no store): it is the part of
 * a start that no orchestrator can avoid.  Not a test; not installed.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <nng/nng.h>
#include <nng/protocol/pipeline0/pull.h>
#include <nng/protocol/pipeline0/push.h>
#include <rocksdb/c.h>

#define MAX_CHILDREN	1000

static uint64_t
now_ns(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
}

/* The child: open, hello, wait for SIGTERM, close.  Exit 0 when all of
 * it worked. */
static int
child_main(const char *dir, const char *url)
{
	rocksdb_options_t	*opt;
	rocksdb_t		*db;
	nng_socket		 s;
	sigset_t		 set;
	char			*err = NULL;
	uint32_t		 pid = (uint32_t)getpid();
	int			 sig, rv = 1;

	/* SIGTERM is taken by sigwait below, never by a handler */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	opt = rocksdb_options_create();
	rocksdb_options_set_create_if_missing(opt, 1);
	db = rocksdb_open(opt, dir, &err);
	if (db == NULL) {
		fprintf(stderr, "dn-spawn-floor: rocksdb_open '%s': %s\n", dir,
		    err);
		free(err);
		goto out;
	}
	if (nng_push0_open(&s) != 0 || nng_dial(s, url, NULL, 0) != 0 ||
	    nng_send(s, &pid, sizeof(pid), 0) != 0) {
		fprintf(stderr, "dn-spawn-floor: cannot say hello to '%s'\n",
		    url);
		rocksdb_close(db);
		goto out;
	}
	sigwait(&set, &sig);
	/* what a node does too: its last message out, then the store */
	nng_close(s);
	rocksdb_close(db);
	rv = 0;
out:
	rocksdb_options_destroy(opt);
	return (rv);
}

/* One round; -1 when a child failed. */
static int
round_run(const char *self, const char *dir, int n, int r, int quiet)
{
	nng_socket	 s;
	pid_t		 pids[MAX_CHILDREN];
	char		 url[512], cdir[512];
	uint64_t	 t0, t1 = 0, t2;
	int		 k, got = 0, bad = 0, status = 0, rv = -1;

	snprintf(url, sizeof(url), "ipc://%s/floor.ipc", dir);
	if (nng_pull0_open(&s) != 0 || nng_listen(s, url, NULL, 0) != 0) {
		fprintf(stderr, "dn-spawn-floor: cannot listen on '%s'\n", url);
		return (-1);
	}
	nng_socket_set_ms(s, NNG_OPT_RECVTIMEO, 60000);
	t0 = now_ns();
	for (k = 0; k < n; k++) {
		snprintf(cdir, sizeof(cdir), "%s/r%d-%d", dir, r, k);
		pids[k] = fork();
		if (pids[k] == 0) {
			execl(self, self, "--child", cdir, url, (char *)NULL);
			_exit(127);
		}
		if (pids[k] == -1) {
			n = k;
			goto out;
		}
	}
	while (got < n) {
		uint32_t	pid;
		size_t		len = sizeof(pid);

		if (nng_recv(s, &pid, &len, 0) != 0) {
			fprintf(stderr, "dn-spawn-floor: round %d: %d of %d "
			    "hellos\n", r, got, n);
			goto out;
		}
		got++;
	}
	t1 = now_ns();
	rv = 0;
out:
	t2 = now_ns();
	for (k = 0; k < n; k++)
		kill(pids[k], SIGTERM);
	for (k = 0; k < n; k++) {
		while (waitpid(pids[k], &status, 0) == -1 && errno == EINTR)
			;
		bad += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	}
	if (rv == 0 && !quiet)
		printf("floor round %d: %d children ready in %.1f ms; stopped "
		    "in %.1f ms\n", r, n, (double)(t1 - t0) / 1e6,
		    (double)(now_ns() - t2) / 1e6);
	nng_close(s);
	return (bad > 0 ? -1 : rv);
}

int
main(int argc, char **argv)
{
	char	self[4096];
	ssize_t	len;
	int	quiet = 0, n, rounds, r;

	if (argc == 4 && strcmp(argv[1], "--child") == 0)
		return (child_main(argv[2], argv[3]));
	if (argc > 1 && strcmp(argv[1], "--help") == 0) {
		printf("usage: dn-spawn-floor [--quiet] DIR NODES ROUNDS\n"
		    "fork+exec NODES children that open RocksDB in DIR and "
		    "say hello over nng; SIGTERM them; print each round's "
		    "ready and stop times\n");
		return (0);
	}
	if (argc > 1 && strcmp(argv[1], "--quiet") == 0) {
		quiet = 1;
		argc--;
		argv++;
	}
	if (argc != 4 || (n = atoi(argv[2])) < 1 || n > MAX_CHILDREN ||
	    (rounds = atoi(argv[3])) < 1) {
		fprintf(stderr, "usage: dn-spawn-floor [--quiet] DIR NODES "
		    "ROUNDS (NODES 1-%d)\n", MAX_CHILDREN);
		return (2);
	}
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0) {
		fprintf(stderr, "dn-spawn-floor: cannot find myself\n");
		return (1);
	}
	self[len] = '\0';
	if (mkdir(argv[1], 0700) != 0 && errno != EEXIST) {
		fprintf(stderr, "dn-spawn-floor: cannot create '%s': %s\n",
		    argv[1], strerror(errno));
		return (1);
	}
	for (r = 1; r <= rounds; r++) {
		if (round_run(self, argv[1], n, r, quiet) != 0)
			return (1);
		fflush(stdout);
	}
	return (0);
}
