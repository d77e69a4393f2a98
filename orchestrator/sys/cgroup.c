/*
 * cgroup.c: the local provider's control groups (see cgroup.h): make
 * them with their limits, read their counters, remove them, sweep what a
 * killed devnet left.  Version 1 and 2 differ only in file names and in
 * where the groups live; both go through the table of hierarchies below.
 *
 * Not here: who gets which limits (provider.c), what the counters become
 * (facts, events: the runner).
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sys/cgroup.h"
#include "xalloc.h"

#define CG_ROOT		"/sys/fs/cgroup"
#define CFS_PERIOD_US	100000

/* v1 controllers, as bits. */
enum { C_CPU = 1, C_CPUACCT = 2, C_CPUSET = 4, C_MEMORY = 8 };
static const char *const ctrl_names[] = { "cpu", "cpuacct", "cpuset",
    "memory" };
#define NCTRL	4

/* One hierarchy the group has a directory in. */
struct cg_dir {
	char	*base;		/* devnet's own group there */
	char	*parent;	/* base/devnet-PID */
	char	*dir;		/* parent/NAME */
	int	 ctrls;		/* C_* it carries (v2: all) */
	int	 fd;		/* dir/cgroup.procs, or -1 */
};

struct dn_cgroup {
	int		 mode;		/* 1 or 2 */
	struct cg_dir	 d[NCTRL];
	int		 nd;
	char		*memfile;
	char		 applied[128];
};

/* --- small files --------------------------------------------------------- */

static int
put_file(const char *dir, const char *file, const char *val, char **cause)
{
	char	*p = dn_xasprintf("%s/%s", dir, file);
	int	 fd, rv = -1;
	size_t	 n = strlen(val);

	if ((fd = open(p, O_WRONLY | O_CLOEXEC)) < 0 ||
	    write(fd, val, n) != (ssize_t)n) {
		if (cause != NULL)
			*cause = dn_xasprintf("cannot write '%s' to %s: %s",
			    val, p, strerror(errno));
	} else
		rv = 0;
	if (fd >= 0)
		close(fd);
	free(p);
	return (rv);
}

/* The first line of DIR/FILE into BUF (newline cut); 0 or -1. */
static int
get_file(const char *dir, const char *file, char *buf, size_t cap)
{
	char	*p = dn_xasprintf("%s/%s", dir, file);
	FILE	*f = fopen(p, "re");
	int	 rv = -1;

	free(p);
	if (f == NULL)
		return (-1);
	if (fgets(buf, (int)cap, f) != NULL) {
		buf[strcspn(buf, "\n")] = '\0';
		rv = 0;
	}
	fclose(f);
	return (rv);
}

/* "KEY VALUE" lines of DIR/FILE: KEY's value, or 0. */
static uint64_t
get_key(const char *dir, const char *file, const char *key)
{
	char			*p = dn_xasprintf("%s/%s", dir, file);
	FILE			*f = fopen(p, "re");
	char			 line[256];
	size_t			 n = strlen(key);
	unsigned long long	 v = 0;

	free(p);
	if (f == NULL)
		return (0);
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, key, n) == 0 && line[n] == ' ') {
			v = strtoull(line + n + 1, NULL, 10);
			break;
		}
	fclose(f);
	return (v);
}

static uint64_t
get_u64(const char *dir, const char *file)
{
	char	buf[64];

	return (get_file(dir, file, buf, sizeof(buf)) == 0 ?
	    strtoull(buf, NULL, 10) : 0);
}

/* --- where the hierarchies are ----------------------------------------- */

/* Does the comma list LIST name CTRL? */
static int
list_has(const char *list, const char *ctrl)
{
	size_t	n = strlen(ctrl);

	while (*list != '\0') {
		if (strncmp(list, ctrl, n) == 0 && (list[n] == ',' ||
		    list[n] == '\0'))
			return (1);
		list = strchr(list, ',');
		if (list == NULL)
			break;
		list++;
	}
	return (0);
}

/*
 * Devnet's own group in each hierarchy that carries a controller of
 * WANT (v1), from /proc/self/cgroup: BASES[i] with the controllers
 * CTRLS[i]; how many (a hierarchy that carries several is listed once).
 */
static int
v1_bases(int want, char **bases, int *ctrls)
{
	FILE	*f = fopen("/proc/self/cgroup", "re");
	char	 line[1024], *list, *path, *mnt;
	int	 n = 0, i, have;
	struct stat st;

	if (f == NULL)
		return (0);
	while (fgets(line, sizeof(line), f) != NULL && n < NCTRL) {
		line[strcspn(line, "\n")] = '\0';
		if ((list = strchr(line, ':')) == NULL ||
		    (path = strchr(++list, ':')) == NULL)
			continue;
		*path++ = '\0';
		for (i = 0, have = 0; i < NCTRL; i++)
			if ((want & 1 << i) && list_has(list, ctrl_names[i]))
				have |= 1 << i;
		if (have == 0)
			continue;
		mnt = dn_xasprintf(CG_ROOT "/%s", list);
		if (stat(mnt, &st) != 0) {
			free(mnt);
			continue;
		}
		bases[n] = dn_xasprintf("%s%s", mnt, strcmp(path, "/") == 0 ?
		    "" : path);
		free(mnt);
		ctrls[n++] = have;
	}
	fclose(f);
	return (n);
}

int
dn_cgroup_mode(const char **why)
{
	char	*bases[NCTRL];
	int	 ctrls[NCTRL], n, i, got = 0;

	if (access(CG_ROOT "/cgroup.controllers", F_OK) == 0) {
		if (access(CG_ROOT "/cgroup.subtree_control", W_OK) == 0)
			return (2);
		*why = "cgroup v2 at " CG_ROOT " is not writable (run devnet "
		    "as root)";
		return (0);
	}
	n = v1_bases(C_CPU | C_CPUACCT | C_CPUSET | C_MEMORY, bases, ctrls);
	for (i = 0; i < n; i++) {
		if (access(bases[i], W_OK) == 0)
			got |= ctrls[i];
		free(bases[i]);
	}
	if ((got & (C_CPU | C_CPUACCT | C_CPUSET | C_MEMORY)) ==
	    (C_CPU | C_CPUACCT | C_CPUSET | C_MEMORY))
		return (1);
	*why = n == 0 ? "no cgroup hierarchy mounted under " CG_ROOT :
	    "the cpu, cpuacct, cpuset and memory cgroups are not all "
	    "mounted and writable under " CG_ROOT " (run devnet as root)";
	return (0);
}

int
dn_cgroup_can_cpuset(const char **why)
{
	char	buf[256], *p;
	int	mode = dn_cgroup_mode(why);

	if (mode != 2)
		return (mode == 1);	/* v1: mode wants cpuset mounted */
	/* v2: a controller bound to a v1 hierarchy is not offered here
	 * ("cpu cpuset memory": words apart by spaces) */
	if (get_file(CG_ROOT, "cgroup.controllers", buf, sizeof(buf)) == 0)
		for (p = buf; (p = strstr(p, "cpuset")) != NULL; p += 6)
			if ((p == buf || p[-1] == ' ') && (p[6] == ' ' ||
			    p[6] == '\0'))
				return (1);
	*why = "cgroup v2 at " CG_ROOT " offers no cpuset controller "
	    "(cgroup.controllers)";
	return (0);
}

/* --- making a group ------------------------------------------------------ */

static void
v1_limits(struct cg_dir *d, const struct dn_cg_limits *l, int *err,
    char **cause)
{
	char	buf[256];

	if (*err)
		return;
	if ((d->ctrls & C_CPUSET) && l->cpuset != NULL) {
		/* a new cpuset group has no CPUs and no memory nodes */
		if (get_file(d->parent, "cpuset.cpus", buf, sizeof(buf)) == 0 &&
		    buf[0] == '\0' && (get_file(d->base, "cpuset.cpus", buf,
		    sizeof(buf)) != 0 || put_file(d->parent, "cpuset.cpus",
		    buf, cause) != 0))
			goto fail;
		if (get_file(d->parent, "cpuset.mems", buf, sizeof(buf)) == 0 &&
		    buf[0] == '\0' && (get_file(d->base, "cpuset.mems", buf,
		    sizeof(buf)) != 0 || put_file(d->parent, "cpuset.mems",
		    buf, cause) != 0))
			goto fail;
		if (put_file(d->dir, "cpuset.cpus", l->cpuset, cause) != 0 ||
		    get_file(d->parent, "cpuset.mems", buf, sizeof(buf)) != 0 ||
		    put_file(d->dir, "cpuset.mems", buf, cause) != 0)
			goto fail;
	}
	if ((d->ctrls & C_CPU) && l->cpus > 0) {
		snprintf(buf, sizeof(buf), "%d", CFS_PERIOD_US);
		if (put_file(d->dir, "cpu.cfs_period_us", buf, cause) != 0)
			goto fail;
		snprintf(buf, sizeof(buf), "%lld", (long long)(l->cpus *
		    CFS_PERIOD_US + 0.5));
		if (put_file(d->dir, "cpu.cfs_quota_us", buf, cause) != 0)
			goto fail;
	}
	if ((d->ctrls & C_MEMORY) && l->memory > 0) {
		snprintf(buf, sizeof(buf), "%llu",
		    (unsigned long long)l->memory);
		if (put_file(d->dir, "memory.limit_in_bytes", buf, cause) != 0)
			goto fail;
		/* with swap accounting: no swapping around the limit */
		put_file(d->dir, "memory.memsw.limit_in_bytes", buf, NULL);
	}
	return;
fail:
	*err = 1;
}

static void
v2_limits(struct cg_dir *d, const struct dn_cg_limits *l, int *err,
    char **cause)
{
	char	buf[64];

	if (*err)
		return;
	if (l->cpuset != NULL &&
	    put_file(d->dir, "cpuset.cpus", l->cpuset, cause) != 0)
		goto fail;
	if (l->cpus > 0) {
		snprintf(buf, sizeof(buf), "%lld %d", (long long)(l->cpus *
		    CFS_PERIOD_US + 0.5), CFS_PERIOD_US);
		if (put_file(d->dir, "cpu.max", buf, cause) != 0)
			goto fail;
	}
	if (l->memory > 0) {
		snprintf(buf, sizeof(buf), "%llu",
		    (unsigned long long)l->memory);
		if (put_file(d->dir, "memory.max", buf, cause) != 0)
			goto fail;
		put_file(d->dir, "memory.swap.max", "0", NULL);
	}
	return;
fail:
	*err = 1;
}

/* v2: hand the controllers down from the root to devnet-PID, each
 * alone: one the kernel refuses is no reason to refuse the others (a
 * limit that needs it fails where it is written). */
static void
v2_enable(const char *parent)
{
	static const char *const c[] = { "+cpu", "+cpuset", "+memory" };
	size_t	i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		put_file(CG_ROOT, "cgroup.subtree_control", c[i], NULL);
		put_file(parent, "cgroup.subtree_control", c[i], NULL);
	}
}

static void
describe(struct dn_cgroup *cg, const struct dn_cg_limits *l)
{
	size_t	o = 0;

	cg->applied[0] = '\0';
	if (l->cpus > 0)
		o += (size_t)snprintf(cg->applied + o, sizeof(cg->applied) - o,
		    "cpus=%g", l->cpus);
	if (l->memory > 0 && o < sizeof(cg->applied))
		o += (size_t)snprintf(cg->applied + o, sizeof(cg->applied) - o,
		    "%smemory=%llu", o ? " " : "",
		    (unsigned long long)l->memory);
	if (l->cpuset != NULL && o < sizeof(cg->applied))
		snprintf(cg->applied + o, sizeof(cg->applied) - o,
		    "%scpuset=%s", o ? " " : "", l->cpuset);
}

int
dn_cgroup_create(const char *name, const struct dn_cg_limits *l,
    struct dn_cgroup **cgp, char **cause)
{
	struct dn_cgroup	*cg;
	const char		*why = NULL;
	char			*bases[NCTRL];
	int			 ctrls[NCTRL], i, err = 0;

	*cgp = NULL;
	cg = dn_xcalloc(1, sizeof(*cg));
	if ((cg->mode = dn_cgroup_mode(&why)) == 0) {
		*cause = dn_xasprintf("resources on the local provider need "
		    "cgroups: %s", why);
		free(cg);
		return (-1);
	}
	if (cg->mode == 2) {
		bases[0] = dn_xstrdup(CG_ROOT);
		ctrls[0] = C_CPU | C_CPUACCT | C_CPUSET | C_MEMORY;
		cg->nd = 1;
	} else
		cg->nd = v1_bases(C_CPU | C_CPUACCT | C_MEMORY |
		    (l->cpuset != NULL ? C_CPUSET : 0), bases, ctrls);
	for (i = 0; i < cg->nd; i++) {
		struct cg_dir *d = &cg->d[i];

		d->fd = -1;
		d->base = bases[i];
		d->ctrls = ctrls[i];
		d->parent = dn_xasprintf("%s/devnet-%d", d->base,
		    (int)getpid());
		d->dir = dn_xasprintf("%s/%s", d->parent, name);
	}
	for (i = 0; i < cg->nd && !err; i++) {
		struct cg_dir *d = &cg->d[i];

		if (mkdir(d->parent, 0755) != 0 && errno != EEXIST) {
			*cause = dn_xasprintf("cannot create %s: %s",
			    d->parent, strerror(errno));
			err = 1;
			break;
		}
		if (cg->mode == 2)
			v2_enable(d->parent);
		else if ((d->ctrls & C_CPUSET) && l->cpuset != NULL)
			/* the parent's CPUs and memory nodes, before the
			 * child is made (v1_limits) */
			v1_limits(&(struct cg_dir){ .base = d->base,
			    .parent = d->parent, .dir = d->parent,
			    .ctrls = 0 }, l, &err, cause);
		if (mkdir(d->dir, 0755) != 0) {
			*cause = dn_xasprintf("cannot create %s: %s", d->dir,
			    strerror(errno));
			free(d->dir);
			d->dir = NULL;
			err = 1;
			break;
		}
		if (cg->mode == 2)
			v2_limits(d, l, &err, cause);
		else
			v1_limits(d, l, &err, cause);
		if (!err && (d->ctrls & C_MEMORY))
			cg->memfile = dn_xasprintf("%s/%s", d->dir,
			    cg->mode == 2 ? "memory.current" :
			    "memory.usage_in_bytes");
		if (!err) {
			char *p = dn_xasprintf("%s/cgroup.procs", d->dir);

			if ((d->fd = open(p, O_WRONLY | O_CLOEXEC)) < 0) {
				*cause = dn_xasprintf("cannot open %s: %s", p,
				    strerror(errno));
				err = 1;
			}
			free(p);
		}
	}
	if (err) {
		dn_cgroup_destroy(cg);
		return (-1);
	}
	describe(cg, l);
	*cgp = cg;
	return (0);
}

int
dn_cgroup_join_fds(struct dn_cgroup *cg, int *fds, int cap)
{
	int	i, n = 0;

	for (i = 0; cg != NULL && i < cg->nd && n < cap; i++)
		if (cg->d[i].fd >= 0)
			fds[n++] = cg->d[i].fd;
	return (n);
}

const char *
dn_cgroup_mem_file(const struct dn_cgroup *cg)
{
	return (cg != NULL ? cg->memfile : NULL);
}

const char *
dn_cgroup_applied(const struct dn_cgroup *cg)
{
	return (cg != NULL ? cg->applied : "");
}

int
dn_cgroup_read(const struct dn_cgroup *cg, struct dn_cg_counters *c)
{
	int	i, got = 0;

	memset(c, 0, sizeof(*c));
	for (i = 0; cg != NULL && i < cg->nd; i++) {
		const struct cg_dir *d = &cg->d[i];

		if (d->dir == NULL || access(d->dir, F_OK) != 0)
			continue;
		got = 1;
		if (cg->mode == 2) {
			c->cpu_s = get_key(d->dir, "cpu.stat", "usage_usec") /
			    1e6;
			c->nr_throttled = get_key(d->dir, "cpu.stat",
			    "nr_throttled");
			c->throttled_s = get_key(d->dir, "cpu.stat",
			    "throttled_usec") / 1e6;
			c->mem_peak = get_u64(d->dir, "memory.peak");
			c->oom_kills = get_key(d->dir, "memory.events",
			    "oom_kill");
			continue;
		}
		if (d->ctrls & C_CPUACCT)
			c->cpu_s = get_u64(d->dir, "cpuacct.usage") / 1e9;
		if (d->ctrls & C_CPU) {
			c->nr_throttled = get_key(d->dir, "cpu.stat",
			    "nr_throttled");
			c->throttled_s = get_key(d->dir, "cpu.stat",
			    "throttled_time") / 1e9;
		}
		if (d->ctrls & C_MEMORY) {
			c->mem_peak = get_u64(d->dir,
			    "memory.max_usage_in_bytes");
			c->oom_kills = get_key(d->dir, "memory.oom_control",
			    "oom_kill");
		}
	}
	return (got ? 0 : -1);
}

/* --- removing ------------------------------------------------------------ */

/* SIGKILL the tasks of DIR until it can be removed (2 s at most). */
static int
remove_dir(const char *dir)
{
	char		*p = dn_xasprintf("%s/cgroup.procs", dir), line[32];
	FILE		*f;
	int		 i, rv = -1;

	for (i = 0; i < 200; i++) {
		if (rmdir(dir) == 0 || errno == ENOENT) {
			rv = 0;
			break;
		}
		if ((f = fopen(p, "re")) != NULL) {
			while (fgets(line, sizeof(line), f) != NULL)
				kill((pid_t)strtol(line, NULL, 10), SIGKILL);
			fclose(f);
		}
		nanosleep(&(struct timespec){ 0, 10 * 1000 * 1000 }, NULL);
	}
	free(p);
	return (rv);
}

void
dn_cgroup_destroy(struct dn_cgroup *cg)
{
	int	i;

	if (cg == NULL)
		return;
	for (i = 0; i < cg->nd; i++) {
		struct cg_dir *d = &cg->d[i];

		if (d->fd >= 0)
			close(d->fd);
		if (d->dir != NULL)
			remove_dir(d->dir);
		/* the other nodes' groups may still be in it */
		if (d->parent != NULL)
			rmdir(d->parent);
		free(d->base);
		free(d->parent);
		free(d->dir);
	}
	free(cg->memfile);
	free(cg);
}

/* Is PID a devnet that runs?  (A pid reused by another program is not.) */
static int
devnet_alive(pid_t pid)
{
	char	path[64], comm[64] = "";
	FILE	*f;

	if (pid == getpid())
		return (1);
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return (0);
	if (fgets(comm, sizeof(comm), f) == NULL)
		comm[0] = '\0';
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	return (strcmp(comm, "devnet") == 0);
}

/* Remove BASE/devnet-PID of dead devnets, their groups first. */
static void
sweep_base(const char *base, int *n)
{
	DIR		*dir, *sub;
	struct dirent	*e, *s;
	char		*parent, *child, *end;
	long		 pid;

	if ((dir = opendir(base)) == NULL)
		return;
	while ((e = readdir(dir)) != NULL) {
		if (strncmp(e->d_name, "devnet-", 7) != 0)
			continue;
		pid = strtol(e->d_name + 7, &end, 10);
		if (*end != '\0' || pid <= 0 || devnet_alive((pid_t)pid))
			continue;
		parent = dn_xasprintf("%s/%s", base, e->d_name);
		if ((sub = opendir(parent)) != NULL) {
			while ((s = readdir(sub)) != NULL) {
				if (s->d_type != DT_DIR || s->d_name[0] == '.')
					continue;
				child = dn_xasprintf("%s/%s", parent,
				    s->d_name);
				if (remove_dir(child) == 0)
					(*n)++;
				free(child);
			}
			closedir(sub);
		}
		rmdir(parent);
		free(parent);
	}
	closedir(dir);
}

int
dn_cgroup_sweep(int *n, char **cause)
{
	const char	*why = NULL;
	char		*bases[NCTRL];
	int		 ctrls[NCTRL], nb, i, mode;

	(void)cause;
	*n = 0;
	if ((mode = dn_cgroup_mode(&why)) == 0)
		return (0);
	if (mode == 2) {
		sweep_base(CG_ROOT, n);
		return (0);
	}
	nb = v1_bases(C_CPU | C_CPUACCT | C_CPUSET | C_MEMORY, bases, ctrls);
	for (i = 0; i < nb; i++) {
		sweep_base(bases[i], n);
		free(bases[i]);
	}
	return (0);
}
