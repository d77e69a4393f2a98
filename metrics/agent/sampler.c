/* sampler.c: /proc/self reader for the metrics agent (see sampler.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "metric-table.h"
#include "sampler.h"
#include "xalloc.h"

int
dn_sampler_open(struct dn_sampler *sp, char **cause)
{
	const char	*cg;

	sp->fd_status = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	sp->fd_stat = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	sp->fd_io = open("/proc/self/io", O_RDONLY | O_CLOEXEC);
	sp->fd_fds = open("/proc/self/fd",
	    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cg = getenv("DN_CGROUP_MEM_FILE");
	sp->fd_cgmem = cg != NULL && cg[0] != '\0' ?
	    open(cg, O_RDONLY | O_CLOEXEC) : -1;
	sp->clk_tck = sysconf(_SC_CLK_TCK);
	if (sp->clk_tck <= 0)
		sp->clk_tck = 100;
	if (sp->fd_status == -1 || sp->fd_stat == -1 || sp->fd_fds == -1) {
		*cause = dn_xasprintf("cannot open /proc/self files: %s",
		    strerror(errno));
		dn_sampler_close(sp);
		return (-1);
	}
	return (0);
}

void
dn_sampler_close(struct dn_sampler *sp)
{
	int	*fds[] = { &sp->fd_status, &sp->fd_stat, &sp->fd_io,
		    &sp->fd_fds, &sp->fd_cgmem };
	size_t	 i;

	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

/* Read the whole file at FD into BUF (NUL-terminated); length or -1. */
static ssize_t
slurp(int fd, char *buf, size_t cap)
{
	ssize_t	n;

	if (fd < 0)
		return (-1);
	n = pread(fd, buf, cap - 1, 0);
	if (n < 0)
		return (-1);
	buf[n] = '\0';
	return (n);
}

/* Value after "NAME" at a line start in BUF, e.g. "VmRSS:\t  123 kB". */
static uint64_t
field(const char *buf, const char *name)
{
	const char	*p = buf;
	size_t		 len = strlen(name);

	while (p != NULL && *p != '\0') {
		if (strncmp(p, name, len) == 0)
			return (strtoull(p + len, NULL, 10));
		p = strchr(p, '\n');
		if (p != NULL)
			p++;
	}
	return (0);
}

/* Entries in /proc/self/fd, minus "." and ".." and our own directory fd. */
static int
count_fds(int dirfd)
{
	char	buf[4096];
	long	n, off;
	int	count = 0;

	if (lseek(dirfd, 0, SEEK_SET) == -1)
		return (0);
	for (;;) {
		n = syscall(SYS_getdents64, dirfd, buf, sizeof(buf));
		if (n <= 0)
			break;
		for (off = 0; off < n;) {
			/* struct linux_dirent64: u64 ino, s64 off, u16
			 * reclen, u8 type, char name[] */
			unsigned short	reclen;
			const char	*name = buf + off + 19;

			memcpy(&reclen, buf + off + 16, sizeof(reclen));
			if (reclen == 0)
				break;
			if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0)
				count++;
			off += reclen;
		}
	}
	return (count > 0 ? count - 1 : 0);
}

void
dn_sampler_read(struct dn_sampler *sp, double *v)
{
	char		 buf[4096];
	struct rusage	 ru;
	const char	*p;
	int		 i;

	if (slurp(sp->fd_status, buf, sizeof(buf)) > 0) {
		v[DN_M_RSS_BYTES] = (double)field(buf, "VmRSS:") * 1024;
		v[DN_M_HWM_BYTES] = (double)field(buf, "VmHWM:") * 1024;
		v[DN_M_THREADS] = (double)field(buf, "Threads:");
	}
	/* /proc/self/stat: fields after the command name, which may contain
	 * spaces and parentheses, so start after the last ')'.  Then field 3
	 * is state; minflt is 10, majflt 12, utime 14, stime 15. */
	if (slurp(sp->fd_stat, buf, sizeof(buf)) > 0 &&
	    (p = strrchr(buf, ')')) != NULL) {
		uint64_t	f[16] = { 0 };
		char		*end;

		p += 2;		/* ") " */
		for (i = 3; i <= 15 && *p != '\0'; i++) {
			if (i == 3) {
				p += 2;		/* state char and space */
				continue;
			}
			f[i] = strtoull(p, &end, 10);
			if (end == p)
				break;
			p = end;
			while (*p == ' ')
				p++;
		}
		v[DN_M_MINFLT] = (double)f[10];
		v[DN_M_MAJFLT] = (double)f[12];
		v[DN_M_CPU_USER_S] = (double)f[14] / (double)sp->clk_tck;
		v[DN_M_CPU_SYS_S] = (double)f[15] / (double)sp->clk_tck;
	}
	/* Context switches of the whole process: /proc/self/status only
	 * has the main thread's, getrusage sums every thread. */
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		v[DN_M_CTX_VOL] = (double)ru.ru_nvcsw;
		v[DN_M_CTX_INVOL] = (double)ru.ru_nivcsw;
	}
	if (slurp(sp->fd_io, buf, sizeof(buf)) > 0) {
		v[DN_M_IO_READ_BYTES] = (double)field(buf, "read_bytes:");
		v[DN_M_IO_WRITE_BYTES] = (double)field(buf, "write_bytes:");
	}
	v[DN_M_FDS] = count_fds(sp->fd_fds);
	if (slurp(sp->fd_cgmem, buf, sizeof(buf)) > 0)
		v[DN_M_CGROUP_MEM_BYTES] = (double)strtoull(buf, NULL, 10);
}
