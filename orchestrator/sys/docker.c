/*
 * docker.c: the `docker` CLI, fork/exec'd (see docker.h).  Nothing here
 * knows what a node, a scenario or a trial is.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sys/capture.h"
#include "clock.h"
#include "sys/docker.h"
#include "sys/spawn.h"
#include "protocol.h"
#include "xalloc.h"

static void	 argv_add(char ***, size_t *, char *);
static char	**lines(char *, size_t *);
static const char *docker_path(void);

int
dk_cmd(const char *const *args, const char *in_path, char **out,
    char **cause)
{
	return (dk_cmd_at(NULL, args, in_path, out, cause));
}

int
dk_cmd_at(const char *engine, const char *const *args, const char *in_path,
    char **out, char **cause)
{
	const char	**argv;
	size_t		  n = 0, i, a = 0;
	int		  rc;

	while (args[n] != NULL)
		n++;
	argv = dn_xcalloc(n + 4, sizeof(*argv));
	argv[a++] = "docker";
	if (engine != NULL) {
		argv[a++] = "--host";
		argv[a++] = engine;
	}
	for (i = 0; i < n; i++)
		argv[a++] = args[i];
	rc = capture_run(argv, in_path, out, cause);
	free(argv);
	return (rc);
}

int
dk_engine_check(char **version, char **cause)
{
	static const char *const args[] = { "version", "--format",
		"{{.Server.Version}}", NULL };
	char	*out = NULL, *c2 = NULL;

	if (version != NULL)
		*version = NULL;
	if (dk_cmd(args, NULL, &out, &c2) != 0) {
		*cause = dn_xasprintf("no Docker daemon: %s (install "
		    "docker.io and start dockerd, or use --provider local)",
		    c2);
		free(c2);
		return (-1);
	}
	out[strcspn(out, "\n")] = '\0';
	if (version != NULL)
		*version = out;
	else
		free(out);
	return (0);
}

int
dk_image_exists(const char *image, char **cause)
{
	const char *const args[] = { "image", "inspect", "--format",
		"{{.Id}}", image, NULL };
	char	*c2 = NULL;

	if (dk_cmd(args, NULL, NULL, &c2) == 0)
		return (1);
	if (strstr(c2, "No such image") != NULL ||
	    strstr(c2, "no such image") != NULL) {
		free(c2);
		return (0);
	}
	*cause = c2;
	return (-1);
}

int
dk_swarm_manager(char **addr, char **cause)
{
	static const char *const args[] = { "info", "--format",
		"{{.Swarm.LocalNodeState}} {{.Swarm.ControlAvailable}} "
		"{{.Swarm.NodeAddr}}", NULL };
	char	*out = NULL, state[32] = "", ctl[16] = "", a[256] = "";

	if (addr != NULL)
		*addr = NULL;
	if (dk_cmd(args, NULL, &out, cause) != 0)
		return (-1);
	if (sscanf(out, "%31s %15s %255s", state, ctl, a) < 2 ||
	    strcmp(state, "active") != 0) {
		*cause = dn_xasprintf("this Docker engine is not in a swarm "
		    "(swarm state '%s'): run `docker swarm init "
		    "--advertise-addr ADDR` here, or use --provider docker",
		    state);
		free(out);
		return (-1);
	}
	if (strcmp(ctl, "true") != 0) {
		*cause = dn_xstrdup("this Docker engine is a swarm worker, "
		    "not a manager: run devnet on a manager (`docker node "
		    "ls` there lists the hosts)");
		free(out);
		return (-1);
	}
	if (addr != NULL)
		*addr = dn_xstrdup(a);
	free(out);
	return (0);
}

int
dk_image_id(const char *image, char **id, char **cause)
{
	const char *const args[] = { "image", "inspect", "--format",
		"{{.Id}}", image, NULL };
	char	*out = NULL;

	*id = NULL;
	if (dk_cmd(args, NULL, &out, cause) != 0)
		return (-1);
	out[strcspn(out, "\n")] = '\0';
	*id = out;
	return (0);
}

static int
host_cmp(const void *a, const void *b)
{
	const struct dk_host	*x = a, *y = b;
	int			 c = strcmp(x->name, y->name);

	return (c != 0 ? c : strcmp(x->id, y->id));
}

int
dk_swarm_hosts(const char *label, struct dk_host **hostsp, int *n,
    char **cause)
{
	static const char *const ls_args[] = { "node", "ls", "--format",
		"{{.ID}}\t{{.Self}}", NULL };
	struct dk_host	 *h = NULL;
	const char	**iargs = NULL;
	char		 *out = NULL, *out2 = NULL, **ls = NULL, **ls2 = NULL;
	char		 *fmt = NULL, *t;
	const char	 *eq = label != NULL ? strchr(label, '=') : NULL;
	size_t		  nl = 0, nl2 = 0, i, a = 0;
	int		  rc = -1;

	*n = 0;
	*hostsp = NULL;
	if (dk_cmd(ls_args, NULL, &out, cause) != 0)
		goto out;
	ls = lines(out, &nl);
	if (nl == 0) {
		rc = 0;
		goto out;
	}
	/* ID, hostname, state, availability, address, the manager's
	 * address (a manager's Status.Addr may be 0.0.0.0), the label */
	fmt = dn_xasprintf("{{.ID}}\t{{.Description.Hostname}}\t"
	    "{{.Status.State}}\t{{.Spec.Availability}}\t{{.Status.Addr}}\t"
	    "{{if .ManagerStatus}}{{.ManagerStatus.Addr}}{{end}}\t"
	    "{{index .Spec.Labels \"%.*s\"}}", eq != NULL ?
	    (int)(eq - label) : 0, eq != NULL ? label : "");
	iargs = dn_xcalloc(nl + 5, sizeof(*iargs));
	iargs[a++] = "node";
	iargs[a++] = "inspect";
	iargs[a++] = "--format";
	iargs[a++] = fmt;
	for (i = 0; i < nl; i++) {
		if ((t = strchr(ls[i], '\t')) != NULL)
			*t = '\0';
		iargs[a++] = ls[i];
	}
	if (dk_cmd(iargs, NULL, &out2, cause) != 0)
		goto out;
	ls2 = lines(out2, &nl2);
	h = dn_xcalloc(nl2 + 1, sizeof(*h));
	for (i = 0; i < nl2; i++) {
		char		*f[7] = { NULL }, *p = ls2[i], *addr;
		size_t		 j, nf = 0;
		struct dk_host	*x;

		for (nf = 0; nf < 7 && p != NULL; nf++) {
			f[nf] = p;
			if ((p = strchr(p, '\t')) != NULL)
				*p++ = '\0';
		}
		if (nf < 6 || strcmp(f[2], "ready") != 0 ||
		    strcmp(f[3], "active") != 0)
			continue;
		if (eq != NULL && (f[6] == NULL || strcmp(f[6], eq + 1) != 0))
			continue;
		x = &h[(*n)++];
		x->id = dn_xstrdup(f[0]);
		x->name = dn_xstrdup(f[1]);
		addr = f[4];
		if ((addr[0] == '\0' || strcmp(addr, "0.0.0.0") == 0) &&
		    f[5][0] != '\0') {
			addr = f[5];
			if ((t = strrchr(addr, ':')) != NULL)
				*t = '\0';	/* ADDR:2377 */
		}
		x->addr = dn_xstrdup(addr);
		/* node ls said which ID is this engine's */
		for (j = 0; j < nl; j++) {
			if (strcmp(ls[j], f[0]) == 0 &&
			    strcmp(ls[j] + strlen(ls[j]) + 1, "true") == 0)
				x->self = 1;
		}
	}
	/* a stable order: by hostname */
	qsort(h, (size_t)*n, sizeof(*h), host_cmp);
	*hostsp = h;
	h = NULL;
	rc = 0;
out:
	free(h);
	free(fmt);
	free(iargs);
	free(ls);
	free(ls2);
	free(out);
	free(out2);
	return (rc);
}

void
dk_hosts_free(struct dk_host *h, int n)
{
	int	i;

	for (i = 0; h != NULL && i < n; i++) {
		free(h[i].id);
		free(h[i].name);
		free(h[i].addr);
	}
	free(h);
}

int
dk_service_logs(const char *service, const char *out_path, char **cause)
{
	char		 a1[] = "service", a2[] = "logs", a3[] = "--raw";
	char		 a4[] = "--no-trunc";
	char		*argv[] = { (char *)docker_path(), a1, a2, a3, a4,
			    (char *)service, NULL };
	struct proc	 p, *pp = &p;
	uint64_t	 deadline;
	FILE		*f;

	/* Every task's output each time: start from an empty file. */
	if ((f = fopen(out_path, "w")) != NULL)
		fclose(f);
	if (spawn_start(&p, argv, NULL, out_path, cause) != 0)
		return (-1);
	deadline = dn_now_ns() + 10000ull * 1000000u;
	while (!spawn_poll(&p)) {
		if (dn_now_ns() >= deadline) {
			spawn_stop_all(&pp, 1, 0);
			*cause = dn_xasprintf("docker service logs %s: no end "
			    "after 10 s", service);
			return (-1);
		}
		nanosleep(&(struct timespec){ 0, 10 * 1000 * 1000 }, NULL);
	}
	return (0);
}

/* Field 22 of /proc/PID/stat (start time in clock ticks), or 0; 0 too
 * for a zombie (a killed devnet nobody reaped yet is gone). */
static unsigned long long
start_time(pid_t pid)
{
	char			 path[64], buf[1024], *p;
	unsigned long long	 v = 0;
	ssize_t			 n;
	int			 fd, f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return (0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return (0);
	buf[n] = '\0';
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ' || p[2] == 'Z' ||
	    p[2] == 'X')
		return (0);
	/* after ") " comes field 3 */
	for (f = 3; f <= 22 && p != NULL; f++)
		p = strchr(p + 1, ' ');
	if (p != NULL)
		v = strtoull(p + 1, NULL, 10);
	return (v);
}

const char *
dk_owner(void)
{
	static char	owner[HOST_NAME_MAX + 64];
	char		host[HOST_NAME_MAX + 1] = "";

	if (owner[0] == '\0') {
		if (gethostname(host, sizeof(host)) != 0)
			snprintf(host, sizeof(host), "localhost");
		host[sizeof(host) - 1] = '\0';
		snprintf(owner, sizeof(owner), "%s:%d:%llu", host,
		    (int)getpid(), start_time(getpid()));
	}
	return (owner);
}

/* Is the devnet process named by OWNER (a devnet.owner label) still
 * running?  Objects of another host's devnet count as alive. */
static int
dk_owner_alive(const char *owner)
{
	char			 host[HOST_NAME_MAX + 1] = "";
	const char		*c1, *c2;
	unsigned long long	 st;
	long			 pid;

	if (owner == NULL || (c2 = strrchr(owner, ':')) == NULL ||
	    c2 == owner)
		return (0);	/* not ours to keep */
	for (c1 = c2 - 1; c1 > owner && *c1 != ':'; c1--)
		;
	if (*c1 != ':')
		return (0);
	if (gethostname(host, sizeof(host)) != 0)
		host[0] = '\0';
	host[sizeof(host) - 1] = '\0';
	if ((size_t)(c1 - owner) != strlen(host) ||
	    strncmp(owner, host, (size_t)(c1 - owner)) != 0)
		return (1);	/* another host's devnet: leave it */
	pid = strtol(c1 + 1, NULL, 10);
	st = strtoull(c2 + 1, NULL, 10);
	if (pid <= 0 || (kill((pid_t)pid, 0) == -1 && errno == ESRCH))
		return (0);
	return (st != 0 && start_time((pid_t)pid) == st);
}

static void
argv_add(char ***v, size_t *n, char *s)
{
	*v = dn_xreallocarray(*v, *n + 2, sizeof(**v));
	(*v)[(*n)++] = s;
	(*v)[*n] = NULL;
}

/* The docker CLI's path ($PATH searched once): the runner execs argv[0]
 * as it is. */
static const char *
docker_path(void)
{
	static char	 found[PATH_MAX];
	const char	*path = getenv("PATH"), *dir, *end;
	char		 cand[PATH_MAX];

	if (found[0] != '\0')
		return (found);
	snprintf(found, sizeof(found), "/usr/bin/docker");
	for (dir = path; dir != NULL && *dir != '\0'; dir = end) {
		size_t	len;

		end = strchr(dir, ':');
		len = end != NULL ? (size_t)(end - dir) : strlen(dir);
		if (end != NULL)
			end++;
		if (len == 0)
			continue;
		snprintf(cand, sizeof(cand), "%.*s/docker", (int)len, dir);
		if (access(cand, X_OK) == 0) {
			snprintf(found, sizeof(found), "%s", cand);
			break;
		}
	}
	return (found);
}

int
dk_env_secret(const char *kv)
{
	static const char *const names[] = { DN_PROBE_TOKEN_ENV,
	    DN_NODE_TOKEN_ENV };
	size_t	i, l;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		l = strlen(names[i]);
		if (strncmp(kv, names[i], l) == 0 && kv[l] == '=')
			return (1);
	}
	return (0);
}

char **
dk_run_argv(const struct dk_container *c)
{
	char	**v = NULL;
	size_t	  n = 0, i;

	argv_add(&v, &n, dn_xstrdup(docker_path()));
	argv_add(&v, &n, dn_xstrdup("run"));
	if (c->detach)
		argv_add(&v, &n, dn_xstrdup("--detach"));
	argv_add(&v, &n, dn_xstrdup("--rm"));
	argv_add(&v, &n, dn_xasprintf("--name=%s", c->name));
	argv_add(&v, &n, dn_xasprintf("--network=%s", c->network != NULL ?
	    c->network : "host"));
	argv_add(&v, &n, dn_xstrdup("--log-driver=none"));
	argv_add(&v, &n, dn_xasprintf("--user=%d:%d", (int)getuid(),
	    (int)getgid()));
	if (c->cpus > 0)
		argv_add(&v, &n, dn_xasprintf("--cpus=%.3f", c->cpus));
	if (c->memory > 0) {
		argv_add(&v, &n, dn_xasprintf("--memory=%llu",
		    (unsigned long long)c->memory));
		/* No swap beyond the limit: the limit is the limit. */
		argv_add(&v, &n, dn_xasprintf("--memory-swap=%llu",
		    (unsigned long long)c->memory));
	}
	for (i = 0; c->labels != NULL && c->labels[i] != NULL; i++)
		argv_add(&v, &n, dn_xasprintf("--label=%s", c->labels[i]));
	for (i = 0; c->mounts != NULL && c->mounts[i] != NULL; i++)
		argv_add(&v, &n, dn_xasprintf("--mount=type=bind,src=%s,"
		    "dst=%s", c->mounts[i], c->mounts[i]));
	for (i = 0; c->env != NULL && c->env[i] != NULL; i++) {
		/* The token by name only: docker takes its value from its
		 * own environment (dk_run_env), not from a command line. */
		if (dk_env_secret(c->env[i]))
			argv_add(&v, &n, dn_xasprintf("--env=%.*s",
			    (int)strcspn(c->env[i], "="), c->env[i]));
		else
			argv_add(&v, &n, dn_xasprintf("--env=%s", c->env[i]));
	}
	argv_add(&v, &n, dn_xstrdup(c->image));
	for (i = 0; c->argv[i] != NULL; i++)
		argv_add(&v, &n, dn_xstrdup(c->argv[i]));
	return (v);
}

void
dk_argv_free(char **argv)
{
	size_t	i;

	for (i = 0; argv != NULL && argv[i] != NULL; i++)
		free(argv[i]);
	free(argv);
}

int
dk_container_pids(const char *const *names, int n, long *pids, char **cause)
{
	const char	**args;
	char		 *out = NULL, *p, *end;
	int		  i, rv = -1;

	args = dn_xcalloc((size_t)n + 5, sizeof(*args));
	args[0] = "container";
	args[1] = "inspect";
	args[2] = "--format";
	args[3] = "{{.State.Pid}}";
	for (i = 0; i < n; i++)
		args[4 + i] = names[i];
	if (dk_cmd(args, NULL, &out, cause) != 0)
		goto out;
	/* one line per name, in order */
	for (p = out, i = 0; i < n; i++, p = end) {
		pids[i] = strtol(p, &end, 10);
		if (end == p || pids[i] <= 0) {
			*cause = dn_xasprintf("container '%s' is not running "
			    "(docker inspect: pid '%.*s')", names[i],
			    (int)strcspn(p, "\n"), p);
			goto out;
		}
	}
	rv = 0;
out:
	free(out);
	free(args);
	return (rv);
}

int
dk_signal(const char *engine, const char *name, int sig, char **cause)
{
	char		 s[32];
	const char	*args[5];

	if (sig == SIGSTOP || sig == SIGCONT) {
		args[0] = sig == SIGSTOP ? "pause" : "unpause";
		args[1] = name;
		args[2] = NULL;
	} else {
		snprintf(s, sizeof(s), "--signal=%d", sig);
		args[0] = "kill";
		args[1] = s;
		args[2] = name;
		args[3] = NULL;
	}
	return (dk_cmd_at(engine, args, NULL, NULL, cause));
}

/* The kinds of objects devnet labels, and how to list them. */
static const struct kind {
	const char	*cmd;		/* docker CMD ls / rm */
	const char	*ls_extra;	/* "-a" for containers */
	const char	*rm_extra;	/* "-f" for containers */
	const char	*inspect_fmt;	/* id TAB owner */
	int		 swarm;		/* only on a swarm manager */
} kinds[] = {
	{ "service", NULL, NULL,
	    "{{.ID}}\t{{index .Spec.Labels \"" DK_LABEL_OWNER "\"}}", 1 },
	{ "config", NULL, NULL,
	    "{{.ID}}\t{{index .Spec.Labels \"" DK_LABEL_OWNER "\"}}", 1 },
	{ "container", "-a", "-f",
	    "{{.Id}}\t{{index .Config.Labels \"" DK_LABEL_OWNER "\"}}", 0 },
	{ "network", NULL, NULL,
	    "{{.Id}}\t{{index .Labels \"" DK_LABEL_OWNER "\"}}", 0 },
	{ "volume", NULL, "-f",
	    "{{.Name}}\t{{index .Labels \"" DK_LABEL_OWNER "\"}}", 0 },
};

/* Split S at newlines into a NULL-terminated array of its lines (S is
 * modified; the array is new). */
static char **
lines(char *s, size_t *np)
{
	char	**v = NULL, *p, *nl;
	size_t	  n = 0;

	for (p = s; p != NULL && *p != '\0'; p = nl) {
		if ((nl = strchr(p, '\n')) != NULL)
			*nl++ = '\0';
		if (*p != '\0')
			argv_add(&v, &n, p);
	}
	*np = n;
	return (v);
}

/* IDs of kind K matching label FILTER (dead owners only when ONLY_DEAD)
 * appended to *IDS.  Returns 0, or -1 with *CAUSE. */
static int
list_kind(const char *engine, const struct kind *k,
    const char *const *filters, int only_dead, char ***ids, size_t *nids,
    char **cause)
{
	const char	*args[16];
	const char	**iargs = NULL;
	char		*out = NULL, *out2 = NULL, *lf[5] = { NULL };
	char		**ls = NULL, **ls2 = NULL;
	size_t		 n = 0, n2 = 0, i, a = 0;
	int		 rc = -1;

	args[a++] = k->cmd;
	args[a++] = "ls";
	args[a++] = "-q";
	if (k->ls_extra != NULL)
		args[a++] = k->ls_extra;
	for (i = 0; i < 5 && filters[i] != NULL; i++) {
		lf[i] = dn_xasprintf("label=%s", filters[i]);
		args[a++] = "--filter";
		args[a++] = lf[i];
	}
	args[a] = NULL;
	if (dk_cmd_at(engine, args, NULL, &out, cause) != 0) {
		if (k->swarm && strstr(*cause, "swarm") != NULL) {
			free(*cause);	/* not a manager: no services */
			*cause = NULL;
			rc = 0;
		}
		goto out;
	}
	ls = lines(out, &n);
	if (n == 0) {
		rc = 0;
		goto out;
	}
	iargs = dn_xcalloc(n + 5, sizeof(*iargs));
	a = 0;
	iargs[a++] = k->cmd;
	iargs[a++] = "inspect";
	iargs[a++] = "--format";
	iargs[a++] = k->inspect_fmt;
	for (i = 0; i < n; i++)
		iargs[a++] = ls[i];
	if (dk_cmd_at(engine, iargs, NULL, &out2, cause) != 0) {
		/* Gone meanwhile (a --rm container): list again later. */
		if (strstr(*cause, "No such") == NULL)
			goto out;
		free(*cause);
		*cause = NULL;
		rc = 0;
		goto out;
	}
	ls2 = lines(out2, &n2);
	for (i = 0; i < n2; i++) {
		char	*tab = strchr(ls2[i], '\t');

		if (tab != NULL)
			*tab++ = '\0';
		if (only_dead && dk_owner_alive(tab))
			continue;
		argv_add(ids, nids, dn_xstrdup(ls2[i]));
	}
	rc = 0;
out:
	for (i = 0; i < 5; i++)
		free(lf[i]);
	free(out);
	free(out2);
	free(ls);
	free(ls2);
	free(iargs);
	return (rc);
}

/* An ended task state ("Shutdown 2 seconds ago"): its container runs no
 * more, on whichever host it was. */
static int
task_ended(const char *st)
{
	static const char *const ended[] = { "Shutdown", "Complete", "Failed",
		"Rejected", "Orphaned", "Remove", NULL };
	size_t	i;

	for (i = 0; ended[i] != NULL; i++) {
		if (strncmp(st, ended[i], strlen(ended[i])) == 0)
			return (1);
	}
	return (0);
}

/*
 * Before services are removed: scale them to 0 and wait (at most 30 s)
 * until none of their tasks runs.  The swarm removes a removed service's
 * containers later, host by host, and this engine sees only its own; a
 * stopped task is a stopped container on every host, so that its ports
 * are free there before the next devnet's nodes bind them.
 */
static void
services_stop(char **ids, size_t n)
{
	const char	**args;
	char		**sc, *out = NULL, *c2 = NULL, **ls;
	size_t		  a = 0, i, nl;
	int		  pass, running;

	args = dn_xcalloc(n + 8, sizeof(*args));
	sc = dn_xcalloc(n, sizeof(*sc));
	args[a++] = "service";
	args[a++] = "scale";
	args[a++] = "--detach";
	for (i = 0; i < n; i++) {
		sc[i] = dn_xasprintf("%s=0", ids[i]);
		args[a++] = sc[i];
	}
	args[a] = NULL;
	if (dk_cmd(args, NULL, NULL, &c2) != 0)
		goto out;	/* service rm will do */
	a = 0;
	args[a++] = "service";
	args[a++] = "ps";
	args[a++] = "--format";
	args[a++] = "{{.CurrentState}}";
	for (i = 0; i < n; i++)
		args[a++] = ids[i];
	args[a] = NULL;
	for (pass = 0; pass < 60; pass++) {
		free(out);
		out = NULL;
		if (dk_cmd(args, NULL, &out, &c2) != 0)
			break;
		ls = lines(out, &nl);
		for (i = 0, running = 0; i < nl; i++)
			running += !task_ended(ls[i]);
		free(ls);
		if (running == 0)
			break;
		nanosleep(&(struct timespec){ 0, 500 * 1000 * 1000 }, NULL);
	}
out:
	free(c2);
	free(out);
	for (i = 0; i < n; i++)
		free(sc[i]);
	free(sc);
	free(args);
}

int
dk_remove_labelled(const char *engine, const char *const *filters,
    int only_dead, int *n, char **cause)
{
	size_t	 i, j, nids;
	char	**ids;
	int	 rc = 0;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		const struct kind	*k = &kinds[i];
		const char		**args;
		size_t			 a = 0;
		char			*c2 = NULL;

		ids = NULL;
		nids = 0;
		/* another engine: its containers, networks and volumes;
		 * the swarm's objects are the manager's */
		if (engine != NULL && k->swarm)
			continue;
		if (list_kind(engine, k, filters, only_dead, &ids, &nids,
		    cause) != 0)
			return (-1);
		if (nids == 0)
			continue;
		if (k->swarm && strcmp(k->cmd, "service") == 0)
			services_stop(ids, nids);
		args = dn_xcalloc(nids + 4, sizeof(*args));
		args[a++] = k->cmd;
		args[a++] = "rm";
		if (k->rm_extra != NULL)
			args[a++] = k->rm_extra;
		for (j = 0; j < nids; j++)
			args[a++] = ids[j];
		if (dk_cmd_at(engine, args, NULL, NULL, &c2) != 0) {
			/* Removal already under way is fine. */
			if (strstr(c2, "already in progress") == NULL &&
			    strstr(c2, "No such") == NULL && rc == 0) {
				*cause = c2;
				c2 = NULL;
				rc = -1;
			}
			free(c2);
		}
		*n += (int)nids;
		free(args);
		dk_argv_free(ids);
	}
	return (rc);
}

int
dk_sweep(const char *engine, int *n, char **cause)
{
	static const char *const f[] = { DK_LABEL_OWNER, NULL };
	int	i, more;

	*n = 0;
	if (dk_remove_labelled(engine, f, 1, n, cause) != 0)
		return (-1);
	/* A removed service's containers go away after it, and may still
	 * hold their ports: look again until nothing is left (counted
	 * once, in the first pass). */
	for (i = 0; i < 20 && *n > 0; i++) {
		more = 0;
		if (dk_remove_labelled(engine, f, 1, &more, cause) != 0)
			return (-1);
		if (more == 0)
			break;
		nanosleep(&(struct timespec){ 0, 500 * 1000 * 1000 }, NULL);
	}
	return (0);
}
