/*
 * clock-trap.c: the wall clock of a COMMAND that libfaketime cannot
 * reach, moved by the probe itself (issue 39; docs/scenarios.md,
 * "clock_skew").  A Go program reads the clock through the vDSO, never
 * libc, and a static one has no dynamic linker to preload into; both
 * still make a system call when there is no vDSO.  So:
 *
 * - in the child, before exec (clock_trap_child): a seccomp filter that
 *   hands clock_gettime(CLOCK_REALTIME), gettimeofday and time to a
 *   listener (SECCOMP_RET_USER_NOTIF), the listener's fd sent to the
 *   probe, PTRACE_TRACEME and a stop;
 * - in the probe (clock_trap_start): at COMMAND's exec stop its auxiliary
 *   vector's AT_SYSINFO_EHDR becomes AT_IGNORE, so neither Go's runtime
 *   nor libc finds a vDSO and every clock read is a system call; then
 *   the probe lets go of it (no ptrace while it runs: signals and stops
 *   as without the trap);
 * - a thread answers each trapped read: the true time plus the offset
 *   devnet writes into --clock-file ("+30.000000", seconds, as for
 *   libfaketime), written into COMMAND's memory, and at most every 50 ms
 *   the witness record (clock-witness.h) in --clock-witness, the clock
 *   COMMAND was given beside the true one, as libdevnet-clock.so does.
 *
 * Only COMMAND's own exec is seen: a program it execs in turn gets its
 * vDSO back (the filter stays), and the proof then fails the trial.
 * The monotonic clocks are never touched.
 */
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock-witness.h"
#include "clock.h"
#include "probe.h"
#include "progkind.h"
#include "xalloc.h"

#define WITNESS_EVERY_NS	50000000LL
#define OFFSET_EVERY_NS		50000000LL
#define STACK_READ		65536

struct clock_trap {
	int		 nfd;		/* the seccomp listener */
	int		 stop[2];	/* a byte: the thread ends */
	pthread_t	 thread;
	int		 running;
	const char	*file;
	int		 wfd;		/* the witness, or -1 */
	int64_t		 off_ns;
	struct timespec	 mtime;
	off_t		 size;
	int64_t		 checked_ns, witnessed_ns;
	uint32_t	 count;
};

int
clock_trap_wanted(const struct probe_opts *o)
{
	char	*bin;
	int	 want;

	if (o->clock_file == NULL || (bin = dn_path_find(o->argv[0])) == NULL)
		return (0);
	want = dn_elf_is_go(bin) || dn_elf_is_static(bin);
	free(bin);
	return (want);
}

/* The filter: the three wall clock reads to the listener, all else on. */
int
clock_trap_child(int sock)
{
	struct sock_filter	 f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_gettimeofday, 5, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_time, 4, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clock_gettime, 0, 2),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CLOCK_REALTIME, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
	};
	struct sock_fprog	 prog = { sizeof(f) / sizeof(f[0]), f };
	char			 cbuf[CMSG_SPACE(sizeof(int))], c = 0;
	struct iovec		 io = { &c, 1 };
	struct msghdr		 m = { .msg_iov = &io, .msg_iovlen = 1,
				    .msg_control = cbuf,
				    .msg_controllen = sizeof(cbuf) };
	struct cmsghdr		*cm;
	int			 fd;

	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) == -1 ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		return (-1);
	fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	    SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (fd == -1)
		return (-1);
	memset(cbuf, 0, sizeof(cbuf));
	cm = CMSG_FIRSTHDR(&m);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(fd));
	if (sendmsg(sock, &m, MSG_NOSIGNAL) != 1)
		return (-1);
	close(fd);
	close(sock);
	return (raise(SIGSTOP));
}

static int
recv_fd(int sock)
{
	char		 cbuf[CMSG_SPACE(sizeof(int))], c;
	struct iovec	 io = { &c, 1 };
	struct msghdr	 m = { .msg_iov = &io, .msg_iovlen = 1,
			    .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf) };
	struct cmsghdr	*cm;
	int		 fd;

	if (recvmsg(sock, &m, MSG_CMSG_CLOEXEC) != 1 ||
	    (cm = CMSG_FIRSTHDR(&m)) == NULL || cm->cmsg_type != SCM_RIGHTS)
		return (-1);
	memcpy(&fd, CMSG_DATA(cm), sizeof(fd));
	return (fd);
}

/* The offset file again if it changed (at most every OFFSET_EVERY_NS). */
static void
offset_read(struct clock_trap *ct, int64_t now)
{
	struct stat	 st;
	char		 buf[64], *frac;
	long long	 sec = 0, us = 0;
	size_t		 n, i;
	FILE		*f;
	int		 neg;

	if (now - ct->checked_ns < OFFSET_EVERY_NS && ct->checked_ns != 0)
		return;
	ct->checked_ns = now;
	if (stat(ct->file, &st) == -1 || (st.st_mtim.tv_sec ==
	    ct->mtime.tv_sec && st.st_mtim.tv_nsec == ct->mtime.tv_nsec &&
	    st.st_size == ct->size) || (f = fopen(ct->file, "re")) == NULL)
		return;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	neg = buf[0] == '-';
	sec = strtoll(buf + (buf[0] == '-' || buf[0] == '+'), &frac, 10);
	if (*frac == '.') {	/* up to 6 digits: microseconds */
		for (i = 1; i <= 6; i++)
			us = us * 10 + (frac[i] >= '0' && frac[i] <= '9' ?
			    frac[i] - '0' : 0);
	}
	ct->off_ns = (neg ? -1 : 1) * (sec * 1000000000LL + us * 1000);
	ct->mtime = st.st_mtim;
	ct->size = st.st_size;
}

static int
put(pid_t pid, uint64_t addr, const void *v, size_t len)
{
	struct iovec	l = { (void *)v, len }, r = { (void *)addr, len };

	return (process_vm_writev(pid, &l, 1, &r, 1, 0) == (ssize_t)len ? 0 :
	    -1);
}

/* One trapped read answered: its clock in COMMAND's memory. */
static void
answer(struct clock_trap *ct, struct seccomp_notif *q,
    struct seccomp_notif_resp *a)
{
	struct timespec	 t, m;
	struct dn_witness	 w;
	int64_t		 ns, mono;
	uint64_t	 p;

	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &m);
	syscall(SYS_clock_gettime, CLOCK_REALTIME, &t);
	mono = (int64_t)m.tv_sec * 1000000000LL + m.tv_nsec;
	offset_read(ct, mono);
	ns = (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec + ct->off_ns;
	memset(a, 0, sizeof(*a));
	a->id = q->id;
	p = q->data.nr == SYS_clock_gettime ? q->data.args[1] :
	    q->data.args[0];
	if (ioctl(ct->nfd, SECCOMP_IOCTL_NOTIF_ID_VALID, &q->id) == -1)
		return;		/* gone: the answer would go nowhere */
	if (q->data.nr == SYS_clock_gettime) {
		struct timespec	 v = { ns / 1000000000LL, ns % 1000000000LL };

		if (ns < 0 || put(q->pid, p, &v, sizeof(v)) == -1)
			a->error = -EFAULT;
	} else if (q->data.nr == SYS_gettimeofday) {
		struct timeval	 v = { ns / 1000000000LL,
				    ns % 1000000000LL / 1000 };

		if (p != 0 && put(q->pid, p, &v, sizeof(v)) == -1)
			a->error = -EFAULT;
	} else {
		time_t	v = (time_t)(ns / 1000000000LL);

		a->val = v;
		if (p != 0 && put(q->pid, p, &v, sizeof(v)) == -1)
			a->error = -EFAULT;
	}
	if (ct->wfd < 0 || a->error != 0 || mono - ct->witnessed_ns <
	    WITNESS_EVERY_NS)
		return;
	ct->witnessed_ns = mono;
	memset(&w, 0, sizeof(w));
	w.seen_ns = ns;
	w.true_ns = (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
	w.mono_ns = mono;
	w.count = ++ct->count;
	w.magic = DN_WITNESS_MAGIC;
	(void)!pwrite(ct->wfd, &w, sizeof(w), 0);
}

static void *
trap_thread(void *arg)
{
	struct clock_trap		*ct = arg;
	struct seccomp_notif		*q;
	struct seccomp_notif_resp	*a;
	struct seccomp_notif_sizes	 sz;
	struct pollfd			 p[2];

	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) == -1)
		return (NULL);
	q = dn_xcalloc(1, sz.seccomp_notif > sizeof(*q) ? sz.seccomp_notif :
	    sizeof(*q));
	a = dn_xcalloc(1, sz.seccomp_notif_resp > sizeof(*a) ?
	    sz.seccomp_notif_resp : sizeof(*a));
	p[0].fd = ct->nfd;
	p[0].events = POLLIN;
	p[1].fd = ct->stop[0];
	p[1].events = POLLIN;
	for (;;) {
		if (poll(p, 2, -1) == -1 && errno != EINTR)
			break;
		if (p[1].revents != 0 || (p[0].revents & (POLLHUP |
		    POLLERR | POLLNVAL)) != 0)
			break;	/* asked to end, or no process left */
		if ((p[0].revents & POLLIN) == 0)
			continue;
		memset(q, 0, sz.seccomp_notif);
		if (ioctl(ct->nfd, SECCOMP_IOCTL_NOTIF_RECV, q) == -1)
			continue;	/* EINTR, or the caller went */
		answer(ct, q, a);
		(void)ioctl(ct->nfd, SECCOMP_IOCTL_NOTIF_SEND, a);
	}
	free(q);
	free(a);
	return (NULL);
}

/* At COMMAND's exec stop: its AT_SYSINFO_EHDR made AT_IGNORE.  1 done,
 * 0 there was none (no vDSO), -1 not readable. */
static int
hide_vdso(pid_t pid)
{
	struct user_regs_struct	 r;
	unsigned long		*st, ign = AT_IGNORE;
	size_t			 n, i;
	ssize_t			 got;
	struct iovec		 l, rv;
	int			 rc = 0;

	if (ptrace(PTRACE_GETREGS, pid, NULL, &r) == -1)
		return (-1);
	st = dn_xcalloc(1, STACK_READ);
	l.iov_base = st;
	l.iov_len = rv.iov_len = STACK_READ;
	rv.iov_base = (void *)r.rsp;
	if ((got = process_vm_readv(pid, &l, 1, &rv, 1, 0)) <= 0) {
		free(st);
		return (-1);
	}
	n = (size_t)got / sizeof(*st);
	i = 1 + st[0] + 1;		/* argc, argv..., NULL */
	while (i < n && st[i] != 0)	/* envp..., NULL */
		i++;
	for (i++; i + 1 < n && st[i] != AT_NULL; i += 2) {
		if (st[i] != AT_SYSINFO_EHDR)
			continue;
		rc = put(pid, r.rsp + i * sizeof(*st), &ign, sizeof(ign));
		rc = rc == 0 ? 1 : -1;
		break;
	}
	free(st);
	return (rc);
}

/* The child's next stop or its end, without reaping an end (the loop
 * reaps it, as any exit).  1 stopped (*STATUS), 0 ended, -1 error. */
static int
next_stop(pid_t pid, int *status)
{
	siginfo_t	si;

	memset(&si, 0, sizeof(si));
	while (waitid(P_PID, (id_t)pid, &si, WEXITED | WSTOPPED | WNOWAIT |
	    __WALL) == -1)
		if (errno != EINTR)
			return (-1);
	if (si.si_code != CLD_STOPPED && si.si_code != CLD_TRAPPED)
		return (0);
	while (waitpid(pid, status, __WALL) == -1)
		if (errno != EINTR)
			return (-1);
	return (1);
}

int
clock_trap_start(struct clock_trap **out, const struct probe_opts *o,
    int sock, pid_t pid, char **cause)
{
	struct clock_trap	*ct = dn_xcalloc(1, sizeof(*ct));
	int			 st, r, hid = 0, tries;

	*out = ct;
	ct->stop[0] = ct->stop[1] = ct->wfd = -1;
	ct->file = o->clock_file;
	if ((ct->nfd = recv_fd(sock)) == -1) {
		*cause = dn_xasprintf("clock_skew of '%s': the seccomp "
		    "listener did not come (Linux 5.0 or later with "
		    "SECCOMP_RET_USER_NOTIF, and ptrace allowed)",
		    o->argv[0]);
		return (-1);
	}
	if (o->clock_witness != NULL)
		ct->wfd = open(o->clock_witness, O_WRONLY | O_CREAT |
		    O_CLOEXEC, 0600);
	if (pipe2(ct->stop, O_CLOEXEC) == -1 || pthread_create(&ct->thread,
	    NULL, trap_thread, ct) != 0) {
		*cause = dn_xasprintf("clock_skew: cannot start the clock "
		    "thread: %s", strerror(errno));
		return (-1);
	}
	ct->running = 1;
	/* the child's own SIGSTOP, then (after signals it may be sent:
	 * passed on) its exec */
	for (tries = 0; tries < 64; tries++) {
		if ((r = next_stop(pid, &st)) <= 0)
			return (r == 0 ? 0 : -1);	/* ended: reaped later */
		if (tries == 0 && WSTOPSIG(st) == SIGSTOP) {
			(void)ptrace(PTRACE_SETOPTIONS, pid, NULL,
			    (void *)(PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL));
			(void)ptrace(PTRACE_CONT, pid, NULL, NULL);
			continue;
		}
		if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXEC << 8))) {
			hid = hide_vdso(pid);
			break;
		}
		(void)ptrace(PTRACE_CONT, pid, NULL,
		    (void *)(long)WSTOPSIG(st));
	}
	(void)ptrace(PTRACE_DETACH, pid, NULL, NULL);
	if (hid < 0) {
		*cause = dn_xasprintf("clock_skew of '%s': cannot hide its "
		    "vDSO at exec: %s", o->argv[0], strerror(errno));
		return (-1);
	}
	return (0);
}

void
clock_trap_stop(struct clock_trap *ct)
{
	char	c = 0;

	if (ct == NULL)
		return;
	if (ct->running) {
		(void)!write(ct->stop[1], &c, 1);
		pthread_join(ct->thread, NULL);
	}
	if (ct->nfd >= 0)
		close(ct->nfd);
	if (ct->wfd >= 0)
		close(ct->wfd);
	if (ct->stop[0] >= 0)
		close(ct->stop[0]);
	if (ct->stop[1] >= 0)
		close(ct->stop[1]);
	free(ct);
}
