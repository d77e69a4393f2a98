/*
 * loop-setup.c: devnet-probe's start and end around its event loop
 * (loop.c calls these, never the reverse): the allocation counter's
 * shim and page for COMMAND, the tree reader, the subreaper role, the
 * signalfd, the http client and the scrape, COMMAND started with its
 * output pumped, the collector socket; and closing all of it.
 */
#include <sys/prctl.h>
#include <sys/signalfd.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "http.h"
#include "loop-internal.h"
#include "transport.h"
#include "clock.h"
#include "progkind.h"
#include "user.h"
#include "xalloc.h"

#define SENDBUF_MSGS	1024

/* The shim's path: --alloc-lib, $DN_ALLOC_LIB, or beside the probe. */
static char *
find_shim(const struct probe_opts *o)
{
	char		 exe[PATH_MAX], *slash, *p;
	const char	*env = getenv("DN_ALLOC_LIB");
	ssize_t		 n;

	if (o->alloc_lib != NULL)
		return (dn_xstrdup(o->alloc_lib));
	if (env != NULL && *env != '\0')
		return (dn_xstrdup(env));
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return (NULL);
	exe[n] = '\0';
	if ((slash = strrchr(exe, '/')) == NULL)
		return (NULL);
	*slash = '\0';
	p = dn_xasprintf("%s/../lib/libdevnet-alloc.so", exe);
	if (access(p, R_OK) == 0)
		return (p);
	free(p);
	return (dn_xasprintf("%s/libdevnet-alloc.so", exe));
}

/* LD_PRELOAD and DN_ALLOC_SHM for COMMAND (*ENV, two entries + NULL). */
static int
setup_allocs(struct run *r, char **env, char **cause)
{
	const char	*pre = NULL;
	const struct dn_user *u = NULL;
	char		*lib;
	size_t		 i;

	if ((lib = find_shim(r->o)) == NULL || access(lib, R_OK) != 0) {
		*cause = dn_xasprintf("--count-allocs: cannot find the shim "
		    "'%s' (use --alloc-lib)", lib ? lib : "libdevnet-alloc.so");
		free(lib);
		return (-1);
	}
	if (lib[0] != '/') {
		char	cwd[PATH_MAX], *abs;

		if (getcwd(cwd, sizeof(cwd)) == NULL) {
			*cause = dn_xstrdup("getcwd failed");
			free(lib);
			return (-1);
		}
		abs = dn_xasprintf("%s/%s", cwd, lib);
		free(lib);
		lib = abs;
	}
	if (r->o->alloc_shm != NULL)
		r->page_path = dn_xstrdup(r->o->alloc_shm);
	else {
		r->page_path = dn_xasprintf("%s/devnet-alloc.%d",
		    access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp",
		    (int)getpid());
		r->remove_page = 1;
	}
	if (alloc_page_create(&r->page, r->page_path, cause) != 0) {
		free(lib);
		return (-1);
	}
	/* the shim in a --user COMMAND opens the page as that user */
	if (r->o->user != NULL && ((u = child_user(r->o, cause)) == NULL ||
	    chown(r->page_path, u->uid, u->gid) != 0)) {
		if (u != NULL)
			*cause = dn_xasprintf("--count-allocs: cannot give "
			    "'%s' to --user %s: %s", r->page_path, r->o->user,
			    strerror(errno));
		free(lib);
		return (-1);
	}
	/* keep a preload COMMAND's environment already asks for, after ours */
	for (i = 0; i < r->o->nenv; i++) {
		if (strncmp(r->o->env_add[i], "LD_PRELOAD=", 11) == 0)
			pre = r->o->env_add[i] + 11;
	}
	if (pre == NULL)
		pre = getenv("LD_PRELOAD");
	if (pre != NULL && *pre != '\0')
		env[0] = dn_xasprintf("LD_PRELOAD=%s:%s", lib, pre);
	else
		env[0] = dn_xasprintf("LD_PRELOAD=%s", lib);
	env[1] = dn_xasprintf("%s=%s", "DN_ALLOC_SHM", r->page_path);
	free(lib);
	return (0);
}

/* A Go node's allocation metrics, from the Go runtime's own counters
 * (docs/probe.md, "Allocation source"). */
static const char *const go_maps[][2] = {
	{ "allocs", "go_memstats_mallocs_total" },
	{ "frees", "go_memstats_frees_total" },
	{ "alloc_bytes", "go_memstats_alloc_bytes_total" },
	{ "heap_live_bytes", "go_memstats_heap_alloc_bytes" },
};

int
loop_setup(struct run *r, char **cause)
{
	char		*env[3] = { NULL, NULL, NULL }, *bin;
	const char	*ctx, *why;
	sigset_t	 set;
	size_t		 i;
	int		 pfd[2] = { -1, -1 }, rv = -1;

	if (tree_open(&r->tree, cause) != 0)
		return (-1);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) == -1) {
		*cause = dn_xasprintf("cannot become a child subreaper: %s",
		    strerror(errno));
		return (-1);
	}
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	sigaddset(&set, SIGTSTP);
	sigaddset(&set, SIGCONT);
	sigaddset(&set, SIGUSR1);	/* devnet gone: child_watch_parent */
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	r->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (r->sigfd == -1) {
		*cause = dn_xasprintf("signalfd: %s", strerror(errno));
		return (-1);
	}
	r->parent = child_watch_parent(SIGUSR1);
	for (i = 0; i < r->o->nready; i++) {
		if (r->o->ready[i].kind == READY_HTTP && r->http == NULL &&
		    dn_http_open(&r->http, cause) != 0)
			return (-1);
	}
	if (r->o->count_allocs && (bin = dn_path_find(r->o->argv[0])) != NULL) {
		r->go = dn_elf_is_go(bin);
		free(bin);
	}
	/* Go's heap is not malloc's: its own counters, if it shows them;
	 * mapped for any program, since a wrapper may exec a Go binary
	 * later (a page without them leaves them absent). */
	for (i = 0; r->o->count_allocs && r->o->prom_url != NULL &&
	    i < sizeof(go_maps) / sizeof(go_maps[0]); i++) {
		int	added = probe_args_add_prom(r->o, go_maps[i][0],
		    go_maps[i][1], cause);

		if (added < 0)
			return (-1);
		if (added == 0)	/* not the user's: never said unmeasured */
			r->o->prom[r->o->nprom - 1].implied = 1;
	}
	if (r->o->prom_url != NULL || r->o->json_url != NULL) {
		if (r->http == NULL && dn_http_open(&r->http, cause) != 0)
			return (-1);
		if (scrape_open(&r->scrape, r->o, r->http, cause) != 0)
			return (-1);
	}
	if (r->o->count_allocs && !r->go && setup_allocs(r, env, cause) != 0)
		goto out;
	if (pipe2(pfd, O_CLOEXEC) == -1) {
		*cause = dn_xasprintf("pipe: %s", strerror(errno));
		goto out;
	}
	if (logpump_open(&r->pump, pfd[0], r->o, cause) != 0) {
		close(pfd[0]);
		goto out;
	}
	pfd[0] = -1;
	/* Fork before nng starts its threads (PLATFORM.md). */
	r->start_ns = dn_now_ns();
	if (child_start(&r->child, r->o, env, pfd[1], cause) != 0)
		goto out;
	/* ctx: where context switches come from (taskstats or /proc) */
	ctx = tree_ctx_source(r->tree, &why);
	say("DN-PROBE-START", "pid=%d child=%d command=%s allocs=%s "
	    "ctx=%s%s%s%s", (int)getpid(), (int)r->child.pid,
	    r->o->argv[0], r->page != NULL ? r->page_path : "off", ctx,
	    why != NULL ? " (" : "", why != NULL ? why : "",
	    why != NULL ? ")" : "");
	if (r->o->metrics_url != NULL) {
		if (dn_sock_open(&r->sock, DN_SOCK_PUSH, cause) != 0)
			goto out;
		dn_sock_set_bufs(r->sock, SENDBUF_MSGS, 0);
		if (dn_sock_dial(r->sock, r->o->metrics_url, cause) != 0)
			goto out;
	}
	rv = 0;
out:
	if (pfd[1] != -1)
		close(pfd[1]);
	free(env[0]);
	free(env[1]);
	return (rv);
}

void
loop_teardown(struct run *r)
{
	if (r->sock != NULL) {
		/* nng gives no linger on close: let the final sample reach
		 * the wire first. */
		dn_msleep(50);
		dn_sock_close(r->sock);
	}
	logpump_close(r->pump);
	clock_trap_stop(r->child.trap);
	r->child.trap = NULL;
	alloc_page_destroy(r->page, r->remove_page);
	free(r->page_path);
	free(r->source);
	bin_seen_free(r->seen);
	tree_free(r->tree);
	scrape_close(r->scrape);
	free(r->ls_named);
	free(r->cs_named);
	dn_http_close(r->http);
	if (r->sigfd >= 0)
		close(r->sigfd);
}

