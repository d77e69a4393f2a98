/*
 * interference.c: this machine's CPU counters, and this devnet's share
 * of them (see interference.h).  Main thread only (the cache of the
 * last read).
 *
 * Devnet's own CPU time is that of its process trees: this process and
 * every live descendant (utime + stime of each), plus what each of them
 * reaped (cutime + cstime): a process's time is in exactly one of those
 * places at any moment, so the sum moves only by the CPU the trees used.
 * What an orphan handed to init used is lost to it, and so counted as
 * the machine's; devnet leaves none (spawn.h).
 */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/interference.h"
#include "clock.h"
#include "buf.h"
#include "xalloc.h"

#define CACHE_NS	100000000ull

struct pstat {
	int		 pid, ppid;
	double		 ticks;		/* utime + stime + cutime + cstime */
	int		 mine;
};

/* Fields 4 (ppid) and 14..17 of /proc/PID/stat into P; 0 or -1. */
static int
read_pstat(int pid, struct pstat *p)
{
	char		 path[64], buf[1024], *s;
	unsigned long long v[4];
	ssize_t		 n;
	int		 fd, ppid;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return (-1);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return (-1);
	buf[n] = '\0';
	/* after the command, which may hold spaces and parentheses */
	if ((s = strrchr(buf, ')')) == NULL ||
	    sscanf(s + 2, "%*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
	    "%llu %llu %llu %llu", &ppid, &v[0], &v[1], &v[2], &v[3]) != 5)
		return (-1);
	p->pid = pid;
	p->ppid = ppid;
	p->ticks = (double)(v[0] + v[1] + v[2] + v[3]);
	p->mine = pid == (int)getpid();
	return (0);
}

/* The CPU time of this process's trees, in s. */
static double
own_cpu_s(void)
{
	DIR		*d;
	struct dirent	*e;
	struct pstat	*ps = NULL;
	size_t		 n = 0, cap = 0, i, j;
	double		 sum = 0, hz = (double)sysconf(_SC_CLK_TCK);
	int		 more;

	if ((d = opendir("/proc")) == NULL)
		return (0);
	while ((e = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		ps = dn_xgrow(ps, &cap, n + 1, sizeof(*ps));
		if (read_pstat(atoi(e->d_name), &ps[n]) == 0)
			n++;
	}
	closedir(d);
	/* mark the descendants, a generation per pass */
	do {
		more = 0;
		for (i = 0; i < n; i++) {
			if (ps[i].mine)
				continue;
			for (j = 0; j < n; j++)
				if (ps[j].mine && ps[j].pid == ps[i].ppid)
					break;
			if (j < n)
				ps[i].mine = more = 1;
		}
	} while (more);
	for (i = 0; i < n; i++)
		if (ps[i].mine)
			sum += ps[i].ticks;
	free(ps);
	return (hz > 0 ? sum / hz : 0);
}

/* "some ... total=US" of /proc/pressure/WHAT, in s; -1 without PSI. */
static double
psi_some_s(const char *what)
{
	char			 path[64], line[256], *p;
	FILE			*f;
	double			 v = -1;

	snprintf(path, sizeof(path), "/proc/pressure/%s", what);
	if ((f = fopen(path, "re")) == NULL)
		return (-1);
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "some ", 5) == 0 &&
		    (p = strstr(line, "total=")) != NULL) {
			v = strtod(p + 6, NULL) / 1e6;
			break;
		}
	fclose(f);
	return (v);
}

static int
read_stat(struct dn_itf_read *r)
{
	FILE			*f = fopen("/proc/stat", "re");
	unsigned long long	 u, ni, sy, id, io, irq, sirq, st;
	double			 hz = (double)sysconf(_SC_CLK_TCK);
	int			 got;

	if (f == NULL)
		return (-1);
	got = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &u,
	    &ni, &sy, &id, &io, &irq, &sirq, &st);
	fclose(f);
	if (got < 7 || hz <= 0)
		return (-1);
	if (got < 8)
		st = 0;
	/* guest time is inside user already */
	r->busy_s = (double)(u + ni + sy + irq + sirq) / hz;
	r->steal_s = (double)st / hz;
	return (0);
}

int
dn_itf_read(struct dn_itf_read *r)
{
	static struct dn_itf_read	 last;
	static int			 have;
	uint64_t			 now = dn_now_ns();
	FILE				*f;
	int				 rv;

	if (have && now - last.ns < CACHE_NS) {
		*r = last;
		return (0);
	}
	memset(r, 0, sizeof(*r));
	r->ns = now;
	r->load1 = NAN;
	rv = read_stat(r);
	r->own_s = own_cpu_s();
	if ((f = fopen("/proc/loadavg", "re")) != NULL) {
		if (fscanf(f, "%lf", &r->load1) != 1)
			r->load1 = NAN;
		fclose(f);
	}
	r->psi_cpu_s = psi_some_s("cpu");
	r->psi_mem_s = psi_some_s("memory");
	r->have_psi = r->psi_cpu_s >= 0 && r->psi_mem_s >= 0;
	if (rv == 0) {
		last = *r;
		have = 1;
	}
	return (rv);
}
