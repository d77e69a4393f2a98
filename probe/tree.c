/*
 * tree.c: /proc metrics of the probe's descendants, COMMAND's whole
 * process tree (see probe.h).  Not a general process-table reader: it
 * starts at the probe's own children file and follows
 * /proc/PID/task/TID/children, so its cost grows with the tree, not with
 * the machine.  Per-process and per-thread files are opened once and
 * re-read with pread (a thread's children and status: two files per
 * thread that were opened and closed on every walk cost ~20-25 us per
 * thread per sample; docs/benchmarks.md, probe cost).
 *
 * What is read per sample, per process: stat, status (VmHWM), io, the
 * size of fd/ (one fstat: Linux >= 6.2 counts open files there; else the
 * listing), task/ listed, and per thread task/TID/children (processes a
 * thread forked).  Context switches: with taskstats (taskstats.c; needs
 * CAP_NET_ADMIN) one TGID query per process, all of a walk's in one
 * sendmsg and one recvmmsg; else task/TID/status of every thread, and
 * then task/ is listed only when a kept status file fails or stat's
 * thread count changed.  With taskstats there are no status files, and
 * a gone thread's children file reads empty (no error): a pidfd per
 * thread (PIDFD_THREAD, Linux 6.9) tells instead, one poll per process;
 * before 6.9 task/ is listed every walk.
 *
 * Exited processes and the counters (the choice, and why):
 *   - minflt, majflt, cpu_user_s, cpu_sys_s: each live process counts
 *     itself plus its reaped children (/proc/PID/stat fields 10+11,
 *     12+13, 14+16, 15+17), and processes the probe reaped count through
 *     wait4's rusage.  When a process exits and its parent reaps it, the
 *     kernel adds its totals to the parent's c* fields at the moment it
 *     leaves /proc, so nothing is lost or counted twice, including the
 *     last moments before exit.  Orphans are reparented to the probe (a
 *     child subreaper), so every process ends up reaped by someone in
 *     the tree or by the probe.
 *   - io_read_bytes, io_write_bytes: /proc/PID/io, which includes reaped
 *     children the same way; the probe's reaps add ru_inblock/ru_oublock
 *     x 512 (the kernel's own unit for them).
 *   - ctx_vol, ctx_invol: Linux keeps no per-process total in /proc, only
 *     per thread (/proc/PID/task/TID/status).  A process counts the sum
 *     of its live threads (never less than it counted before); when it
 *     leaves the tree its last count is kept.  So switches of threads
 *     that exited within a live process, and of a process's last
 *     interval, are missed: an undercount, never a drop.  Through
 *     taskstats the kernel sums the thread group itself: the same live
 *     threads' sum, plus the exited threads' on kernels that retain them
 *     in TGID answers (6.18 here), so less undercount there; the same
 *     never-less and keep-on-exit rules apply.  Reaped processes'
 *     switches (wait4's ru_nvcsw) are not added on either path.
 *   - Every counter is finally held at its previous value if a walk
 *     raced an exit (a process read gone before its parent's c* grew).
 * Gauges (rss_bytes, threads, fds) are sums over live processes;
 * hwm_bytes is the sum of VmHWM, never lower than before (so peak).
 * When no process is alive (the final sample after COMMAND exited) the
 * gauges keep the last walk's values instead of dropping to 0.
 */
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "metric-table.h"
#include "probe.h"
#include "procfs.h"
#include "buf.h"
#include "xalloc.h"

#define TREE_MAX	4096	/* processes followed per walk */
#ifndef PIDFD_THREAD
#define PIDFD_THREAD	O_EXCL	/* Linux 6.9: a pidfd for one thread */
#endif

/*
 * A children file has no size limit (8 bytes a pid at most: ~12 KiB for
 * 1,500 children of one thread), so it is read whole into a buffer that
 * grows and is kept for the next walk.  A fixed 4 KiB read saw ~700
 * children and parsed the last, cut pid as a wrong one (issue 19 #7).
 */
struct kidbuf {
	char	*p;
	size_t	 cap;
};

/* A thread's files, kept open while the thread is listed. */
struct thr_ent {
	pid_t		tid;
	int		fd_children, fd_status;
	int		fd_pid;		/* taskstats: a pidfd, readable once
					   the thread is gone */
	int		seen;
};

struct proc_ent {
	pid_t		pid;
	unsigned long long start;	/* starttime: pid reuse guard */
	int		fd_stat, fd_status, fd_io, fd_fd, fd_task;
	int		seen;
	char		state;
	double		ctx_vol, ctx_invol;	/* this process, clamped */
	struct thr_ent	*thr;
	size_t		 nthr, capthr;
};

struct tree {
	struct proc_ent	*ents;
	size_t		 n, cap;
	long		 clk_tck;
	long		 page;
	pid_t		 self;
	int		 fd_self_children;	/* our own children file */
	struct kidbuf	 kids;		/* children files, read whole */
	struct tstats	*ts;		/* ctx switches; NULL: per thread */
	char		*ts_why;	/* why not taskstats */

	/* processes reaped by the probe (wait4) */
	double		 r_user, r_sys, r_minflt, r_majflt, r_rd, r_wr;
	/* ctx of processes that left the tree */
	double		 d_vol, d_invol;
	/* last reported values (monotonic and carried gauges) */
	double		 last[DN_METRIC_COUNT];
	int		 have_last;
};

/*
 * All of FD (a children file) into B from offset 0, NUL-terminated: its
 * length, or -1 when FD is -1 or a read fails.  Sequential reads on one
 * open file continue the kernel's listing where it stopped, so no pid is
 * cut between two reads.
 */
static ssize_t
read_whole(int fd, struct kidbuf *b)
{
	size_t	n = 0;
	ssize_t	r;

	if (fd < 0)
		return (-1);
	for (;;) {
		b->p = dn_xgrow(b->p, &b->cap, n + 4096, 1);
		if ((r = pread(fd, b->p + n, b->cap - n - 1, (off_t)n)) < 0)
			return (-1);
		if (r == 0)
			break;
		n += (size_t)r;
	}
	b->p[n] = '\0';
	return ((ssize_t)n);
}

/* Open /proc/PID/task/TID/NAME read-only, or -1. */
static int
open_task_file(pid_t pid, pid_t tid, const char *name)
{
	char	path[96];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", (int)pid,
	    (int)tid, name);
	return (open(path, O_RDONLY | O_CLOEXEC));
}

static void
close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void
thr_close(struct thr_ent *th)
{
	close_fd(&th->fd_children);
	close_fd(&th->fd_status);
	close_fd(&th->fd_pid);
}

static void
ent_close(struct proc_ent *e)
{
	int	*fds[] = { &e->fd_stat, &e->fd_status, &e->fd_io, &e->fd_fd,
		    &e->fd_task };
	size_t	 i;

	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		close_fd(fds[i]);
	for (i = 0; i < e->nthr; i++)
		thr_close(&e->thr[i]);
	free(e->thr);
	e->thr = NULL;
	e->nthr = e->capthr = 0;
}

static int
ent_open(struct proc_ent *e, pid_t pid)
{
	char	path[64];

	memset(e, 0, sizeof(*e));
	e->pid = pid;
	e->fd_status = e->fd_io = e->fd_fd = e->fd_task = -1;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((e->fd_stat = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return (-1);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	e->fd_status = open(path, O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), "/proc/%d/io", (int)pid);
	e->fd_io = open(path, O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	e->fd_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	e->fd_task = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return (0);
}

/* A process left the tree: keep what only it knew (its ctx switches). */
static void
ent_retire(struct tree *t, struct proc_ent *e)
{
	t->d_vol += e->ctx_vol;
	t->d_invol += e->ctx_invol;
	ent_close(e);
}

int
tree_open(struct tree **tp, char **cause)
{
	struct tree	*t;

	t = dn_xcalloc(1, sizeof(*t));
	t->clk_tck = sysconf(_SC_CLK_TCK);
	if (t->clk_tck <= 0)
		t->clk_tck = 100;
	t->page = sysconf(_SC_PAGESIZE);
	if (t->page <= 0)
		t->page = 4096;
	t->self = getpid();
	t->fd_self_children = open_task_file(t->self, t->self, "children");
	if (tstats_open(&t->ts, &t->ts_why) != 0)
		t->ts = NULL;
	*tp = t;
	(void)cause;
	return (0);
}

void
tree_free(struct tree *t)
{
	size_t	i;

	if (t == NULL)
		return;
	for (i = 0; i < t->n; i++)
		ent_close(&t->ents[i]);
	close_fd(&t->fd_self_children);
	free(t->kids.p);
	tstats_close(t->ts);
	free(t->ts_why);
	free(t->ents);
	free(t);
}

void
tree_add_reaped(struct tree *t, const struct rusage *ru)
{
	t->r_user += (double)ru->ru_utime.tv_sec +
	    (double)ru->ru_utime.tv_usec / 1e6;
	t->r_sys += (double)ru->ru_stime.tv_sec +
	    (double)ru->ru_stime.tv_usec / 1e6;
	t->r_minflt += (double)ru->ru_minflt;
	t->r_majflt += (double)ru->ru_majflt;
	t->r_rd += (double)ru->ru_inblock * 512;
	t->r_wr += (double)ru->ru_oublock * 512;
}

/* A list of pids to visit. */
struct pidq {
	pid_t	pids[TREE_MAX];
	size_t	n;
};

/* Append the pids of a children text ("12 34 ") to Q. */
static void
parse_children(struct pidq *q, char *buf)
{
	char	*p, *end;
	long	 v;

	for (p = buf;;) {
		v = strtol(p, &end, 10);
		if (end == p)
			break;
		if (v > 0 && q->n < TREE_MAX)
			q->pids[q->n++] = (pid_t)v;
		p = end;
	}
}

/* Append the pids of a children file ("12 34 ") to Q. */
static void
add_children(struct pidq *q, struct kidbuf *b, const char *path)
{
	int	fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return;
	if (read_whole(fd, b) > 0)
		parse_children(q, b->p);
	close(fd);
}

struct thread_walk {
	struct proc_ent	*e;
	struct pidq	*q;
	struct kidbuf	*kids;
	int		 want_ctx;	/* read status (no taskstats) */
	double		 vol, invol;
};

/* Read a thread's file through its kept FD; on failure (first use, or
 * the thread went and its tid was reused) open it afresh once. */
static ssize_t
slurp_kept(int *fd, pid_t pid, pid_t tid, const char *name, char *buf,
    size_t cap)
{
	ssize_t	n;

	if (*fd >= 0 && (n = dn_procfs_read(*fd, buf, cap)) >= 0)
		return (n);
	close_fd(fd);
	if ((*fd = open_task_file(pid, tid, name)) == -1)
		return (-1);
	return (dn_procfs_read(*fd, buf, cap));
}

/* slurp_kept for a children file: read whole into B. */
static ssize_t
slurp_kept_kids(int *fd, pid_t pid, pid_t tid, struct kidbuf *b)
{
	ssize_t	n;

	if (*fd >= 0 && (n = read_whole(*fd, b)) >= 0)
		return (n);
	close_fd(fd);
	if ((*fd = open_task_file(pid, tid, "children")) == -1)
		return (-1);
	return (read_whole(*fd, b));
}

static void
visit_thread(void *arg, const char *name)
{
	struct thread_walk	*w = arg;
	struct proc_ent		*e = w->e;
	struct thr_ent		*th = NULL;
	char			 buf[4096];
	pid_t			 tid = (pid_t)strtol(name, NULL, 10);
	size_t			 i;

	for (i = 0; i < e->nthr; i++) {
		if (e->thr[i].tid == tid) {
			th = &e->thr[i];
			break;
		}
	}
	if (th == NULL) {
		e->thr = dn_xgrow(e->thr, &e->capthr, e->nthr + 1,
		    sizeof(*e->thr));
		th = &e->thr[e->nthr++];
		th->tid = tid;
		th->fd_children = th->fd_status = -1;
		/* without status files, how known_threads sees it go (-1
		 * before Linux 6.9: then task/ is listed every walk) */
		th->fd_pid = w->want_ctx ? -1 : (int)syscall(SYS_pidfd_open,
		    tid, PIDFD_THREAD);
	}
	th->seen = 1;
	if (slurp_kept_kids(&th->fd_children, e->pid, tid, w->kids) > 0)
		parse_children(w->q, w->kids->p);
	if (w->want_ctx && slurp_kept(&th->fd_status, e->pid, tid, "status",
	    buf, sizeof(buf)) > 0) {
		w->vol += (double)dn_procfs_field(buf,
		    "voluntary_ctxt_switches:");
		w->invol += (double)dn_procfs_field(buf,
		    "nonvoluntary_ctxt_switches:");
	}
}

/*
 * With taskstats (no status files): 0 when every thread of E has a
 * pidfd and none of them is readable, i.e. none went (nor had its tid
 * reused: the pidfd is the old thread's).  A gone thread's children file
 * reads empty, not an error, so it cannot tell by itself.
 */
static int
threads_alive(struct proc_ent *e)
{
	struct pollfd	 fds[64];
	size_t		 i, n = e->nthr;

	if (n > sizeof(fds) / sizeof(fds[0]))
		return (-1);	/* a big process: list task/ */
	for (i = 0; i < n; i++) {
		if ((fds[i].fd = e->thr[i].fd_pid) < 0)
			return (-1);
		fds[i].events = POLLIN;
		fds[i].revents = 0;
	}
	return (poll(fds, (nfds_t)n, 0) == 0 ? 0 : -1);
}

/*
 * The threads of W->e as the last walk listed them, read through their
 * kept files: 0 when every one answered and NTHREADS (stat's count) says
 * no thread came since, else -1 with W as it was (then the task
 * directory is listed; three syscalls per process this saves).  A
 * thread that went fails its status read, and so does one whose tid was
 * reused (the file belongs to the old thread), so the set is the same
 * when this succeeds.  With taskstats there are no status files: the
 * threads' pidfds tell instead (threads_alive).
 */
static int
known_threads(struct thread_walk *w, unsigned long long nthreads)
{
	struct proc_ent	*e = w->e;
	char		 buf[4096];
	size_t		 i, qn = w->q->n;
	ssize_t		 n;

	if (e->nthr == 0 || e->nthr != nthreads ||
	    (!w->want_ctx && threads_alive(e) != 0))
		return (-1);
	for (i = 0; i < e->nthr; i++) {
		struct thr_ent	*th = &e->thr[i];

		if ((n = read_whole(th->fd_children, w->kids)) < 0)
			goto undo;
		if (n > 0)
			parse_children(w->q, w->kids->p);
		if (!w->want_ctx)
			continue;
		if (dn_procfs_read(th->fd_status, buf, sizeof(buf)) <= 0)
			goto undo;
		w->vol += (double)dn_procfs_field(buf,
		    "voluntary_ctxt_switches:");
		w->invol += (double)dn_procfs_field(buf,
		    "nonvoluntary_ctxt_switches:");
	}
	return (0);
undo:
	w->q->n = qn;
	w->vol = w->invol = 0;
	return (-1);
}

/* Close the files of threads not listed in this walk. */
static void
drop_unseen_threads(struct proc_ent *e)
{
	size_t	i;

	for (i = 0; i < e->nthr;) {
		if (!e->thr[i].seen) {
			thr_close(&e->thr[i]);
			e->thr[i] = e->thr[--e->nthr];
		} else
			e->thr[i++].seen = 0;
	}
}

static struct proc_ent *
find(struct tree *t, pid_t pid)
{
	size_t	i;

	for (i = 0; i < t->n; i++) {
		if (t->ents[i].pid == pid)
			return (&t->ents[i]);
	}
	return (NULL);
}

/* A process's context switches of this walk: never fewer than before
 * (a thread that exited takes its count along on /proc). */
static void
ent_ctx(struct proc_ent *e, double vol, double invol)
{
	if (vol > e->ctx_vol)
		e->ctx_vol = vol;
	if (invol > e->ctx_invol)
		e->ctx_invol = invol;
}

/*
 * Context switches of every live process this walk saw, in one taskstats
 * exchange (taskstats.c).  A process that is gone by now answers
 * nothing and keeps its last count.
 */
static void
read_taskstats(struct tree *t)
{
	struct tstats_proc	*p;
	size_t			 i, n = 0;

	p = dn_xcalloc(t->n ? t->n : 1, sizeof(*p));
	for (i = 0; i < t->n; i++) {
		if (t->ents[i].seen && t->ents[i].state != 'Z' &&
		    t->ents[i].state != 'X')
			p[n++].pid = t->ents[i].pid;
	}
	if (n > 0 && tstats_read(t->ts, p, n) == 0) {
		for (i = 0; i < n; i++) {
			struct proc_ent	*e = find(t, p[i].pid);

			if (p[i].ok)
				ent_ctx(e, (double)p[i].vol,
				    (double)p[i].invol);
		}
	}
	free(p);
}

/*
 * One process of the walk: its entry found or opened (a pid gone or
 * reused is retired), its counters and, when it lives, its gauges added
 * to LIVE (*NLIVE counts the living), its children queued on Q.
 */
static void
walk_one(struct tree *t, struct pidq *q, pid_t pid, double *live,
    int *nlive)
{
	struct proc_ent		*e = find(t, pid);
	unsigned long long	 f[25] = { 0 };
	struct thread_walk	 w = { .q = q, .kids = &t->kids };
	char			 buf[4096], state = 0;

	if (e != NULL && e->seen)
		return;		/* listed twice (raced a reparent) */
	if (e != NULL && (dn_procfs_read(e->fd_stat, buf, sizeof(buf)) <= 0 ||
	    (state = dn_procfs_stat(buf, f, 25)) == 0 || f[22] != e->start)) {
		/* gone, or the pid was reused */
		ent_retire(t, e);
		*e = t->ents[--t->n];
		e = NULL;
	}
	if (e == NULL) {
		t->ents = dn_xgrow(t->ents, &t->cap, t->n + 1,
		    sizeof(*t->ents));
		e = &t->ents[t->n];
		if (ent_open(e, pid) != 0)
			return;
		if (dn_procfs_read(e->fd_stat, buf, sizeof(buf)) <= 0 ||
		    (state = dn_procfs_stat(buf, f, 25)) == 0) {
			ent_close(e);
			return;
		}
		e->start = f[22];
		t->n++;
	}
	e->seen = 1;
	e->state = state;
	live[DN_M_MINFLT] += (double)(f[10] + f[11]);
	live[DN_M_MAJFLT] += (double)(f[12] + f[13]);
	live[DN_M_CPU_USER_S] += (double)(f[14] + f[16]) / (double)t->clk_tck;
	live[DN_M_CPU_SYS_S] += (double)(f[15] + f[17]) / (double)t->clk_tck;
	if (state != 'Z' && state != 'X') {
		(*nlive)++;
		live[DN_M_THREADS] += (double)f[20];
		live[DN_M_RSS_BYTES] += (double)f[24] * (double)t->page;
		if (dn_procfs_read(e->fd_status, buf, sizeof(buf)) > 0)
			live[DN_M_HWM_BYTES] += (double)
			    dn_procfs_field(buf, "VmHWM:") * 1024;
		live[DN_M_FDS] += dn_procfs_count_fds(e->fd_fd);
	}
	if (dn_procfs_read(e->fd_io, buf, sizeof(buf)) > 0) {
		live[DN_M_IO_READ_BYTES] +=
		    (double)dn_procfs_field(buf, "read_bytes:");
		live[DN_M_IO_WRITE_BYTES] +=
		    (double)dn_procfs_field(buf, "write_bytes:");
	}
	/* threads: their children (processes forked by any thread) and,
	 * without taskstats, their context switches */
	w.e = e;
	w.want_ctx = t->ts == NULL;
	if (known_threads(&w, f[20]) != 0) {
		dn_procfs_dirents(e->fd_task, visit_thread, &w);
		drop_unseen_threads(e);
	}
	if (t->ts == NULL)
		ent_ctx(e, w.vol, w.invol);
}

/*
 * After the walk: the context switches of the seen, the unseen retired,
 * the retired's counters added, and counters and the peak held (a
 * counter never goes back; gauges carry over an empty tree).
 */
static void
walk_end(struct tree *t, double *live, int nlive)
{
	size_t	i;

	if (t->ts != NULL)
		read_taskstats(t);
	for (i = 0; i < t->n; i++) {
		if (t->ents[i].seen) {
			live[DN_M_CTX_VOL] += t->ents[i].ctx_vol;
			live[DN_M_CTX_INVOL] += t->ents[i].ctx_invol;
		}
	}
	for (i = 0; i < t->n;) {
		if (!t->ents[i].seen) {
			ent_retire(t, &t->ents[i]);
			t->ents[i] = t->ents[--t->n];
		} else
			i++;
	}
	live[DN_M_MINFLT] += t->r_minflt;
	live[DN_M_MAJFLT] += t->r_majflt;
	live[DN_M_CPU_USER_S] += t->r_user;
	live[DN_M_CPU_SYS_S] += t->r_sys;
	live[DN_M_IO_READ_BYTES] += t->r_rd;
	live[DN_M_IO_WRITE_BYTES] += t->r_wr;
	live[DN_M_CTX_VOL] += t->d_vol;
	live[DN_M_CTX_INVOL] += t->d_invol;
	for (i = 0; i < DN_METRIC_COUNT; i++) {
		int	gauge = i == DN_M_RSS_BYTES || i == DN_M_THREADS ||
			    i == DN_M_FDS;

		if (t->have_last && gauge && nlive == 0)
			live[i] = t->last[i];
		else if (t->have_last && !gauge && live[i] < t->last[i])
			live[i] = t->last[i];
	}
	memcpy(t->last, live, sizeof(t->last));
	t->have_last = 1;
}

void
tree_read(struct tree *t, double *v)
{
	static const int	 out[] = { DN_M_RSS_BYTES, DN_M_HWM_BYTES,
	    DN_M_THREADS, DN_M_MINFLT, DN_M_MAJFLT, DN_M_CPU_USER_S,
	    DN_M_CPU_SYS_S, DN_M_CTX_VOL, DN_M_CTX_INVOL, DN_M_IO_READ_BYTES,
	    DN_M_IO_WRITE_BYTES, DN_M_FDS };
	struct pidq		*q;
	double			 live[DN_METRIC_COUNT];
	size_t			 i, head = 0;
	int			 nlive = 0;

	memset(live, 0, sizeof(live));
	q = dn_xmalloc(sizeof(*q));
	q->n = 0;
	for (i = 0; i < t->n; i++)
		t->ents[i].seen = 0;
	if (slurp_kept_kids(&t->fd_self_children, t->self, t->self,
	    &t->kids) > 0)
		parse_children(q, t->kids.p);
	while (head < q->n)
		walk_one(t, q, q->pids[head++], live, &nlive);
	free(q);
	walk_end(t, live, nlive);
	for (i = 0; i < sizeof(out) / sizeof(out[0]); i++)
		v[out[i]] = live[out[i]];
}

const char *
tree_ctx_source(const struct tree *t, const char **why)
{
	*why = t->ts_why;
	return (t->ts != NULL ? "taskstats" : "proc");
}

void
tree_each(struct tree *t, void (*fn)(pid_t, void *), void *arg)
{
	size_t	i;

	for (i = 0; i < t->n; i++) {
		if (t->ents[i].state != 'Z' && t->ents[i].state != 'X')
			fn(t->ents[i].pid, arg);
	}
}

int
tree_has(struct tree *t, pid_t pid)
{
	struct proc_ent	*e = find(t, pid);

	return (e != NULL && e->state != 'Z' && e->state != 'X');
}

struct sig_walk {
	pid_t		 pid;
	struct pidq	*q;
	struct kidbuf	*kids;
};

static void
sig_thread(void *arg, const char *tid)
{
	struct sig_walk	*w = arg;
	char		 path[96];

	snprintf(path, sizeof(path), "/proc/%d/task/%s/children",
	    (int)w->pid, tid);
	add_children(w->q, w->kids, path);
}

int
tree_signal_all(struct tree *t, int sig)
{
	struct pidq	*q = dn_xmalloc(sizeof(*q));
	struct sig_walk	 w = { .q = q, .kids = &t->kids };
	char		 path[64];
	size_t		 head = 0;
	int		 n = 0, fd;

	q->n = 0;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children",
	    (int)t->self, (int)t->self);
	add_children(q, &t->kids, path);
	while (head < q->n) {
		w.pid = q->pids[head++];
		snprintf(path, sizeof(path), "/proc/%d/task", (int)w.pid);
		if ((fd = open(path, O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC)) != -1) {
			dn_procfs_dirents(fd, sig_thread, &w);
			close(fd);
		}
		if (kill(w.pid, sig) == 0)
			n++;
	}
	free(q);
	return (n);
}
