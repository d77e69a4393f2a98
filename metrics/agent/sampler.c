/* sampler.c: /proc/self reader for the metrics agent (see sampler.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "metric-table.h"
#include "procfs.h"
#include "sampler.h"
#include "xalloc.h"

int
dn_sampler_open(struct dn_sampler *sp, char **cause)
{
	const char	*cg;

	sp->fd_status = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	sp->fd_fds = open("/proc/self/fd",
	    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cg = getenv("DN_CGROUP_MEM_FILE");
	sp->fd_cgmem = cg != NULL && cg[0] != '\0' ?
	    open(cg, O_RDONLY | O_CLOEXEC) : -1;
	if (sp->fd_status == -1 || sp->fd_fds == -1) {
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
	int	*fds[] = { &sp->fd_status, &sp->fd_fds, &sp->fd_cgmem };
	size_t	 i;

	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

uint64_t
dn_sampler_read(struct dn_sampler *sp, double *v)
{
	char		buf[4096];
	struct rusage	ru;
	uint64_t	absent = 0;
	int		nfds, rc;

	/* status for VmHWM, which nothing cheaper has (getrusage's
	 * ru_maxrss holds the forking parent's peak from before the exec,
	 * and its RSS counters are the kernel's per-CPU estimates, not the
	 * exact sums status shows); RSS and Threads come with it */
	if (dn_procfs_read(sp->fd_status, buf, sizeof(buf)) > 0) {
		v[DN_M_RSS_BYTES] =
		    (double)dn_procfs_field(buf, "VmRSS:") * 1024;
		v[DN_M_HWM_BYTES] =
		    (double)dn_procfs_field(buf, "VmHWM:") * 1024;
		v[DN_M_THREADS] = (double)dn_procfs_field(buf, "Threads:");
	} else
		absent |= 1ull << DN_M_RSS_BYTES | 1ull << DN_M_HWM_BYTES |
		    1ull << DN_M_THREADS;
	/* Faults, CPU and context switches of the whole process (every
	 * thread, the dead ones too): the same sums /proc/self/stat gives,
	 * and the CPU times in microseconds rather than clock ticks, for a
	 * quarter of the stat file's cost (docs/benchmarks.md, issue 26).
	 * /proc/self/status has only the main thread's switches. */
	if ((rc = getrusage(RUSAGE_SELF, &ru)) == 0) {
		v[DN_M_MINFLT] = (double)ru.ru_minflt;
		v[DN_M_MAJFLT] = (double)ru.ru_majflt;
		v[DN_M_CPU_USER_S] = (double)ru.ru_utime.tv_sec +
		    (double)ru.ru_utime.tv_usec / 1e6;
		v[DN_M_CPU_SYS_S] = (double)ru.ru_stime.tv_sec +
		    (double)ru.ru_stime.tv_usec / 1e6;
		v[DN_M_CTX_VOL] = (double)ru.ru_nvcsw;
		v[DN_M_CTX_INVOL] = (double)ru.ru_nivcsw;
	} else
		absent |= 1ull << DN_M_MINFLT | 1ull << DN_M_MAJFLT |
		    1ull << DN_M_CPU_USER_S | 1ull << DN_M_CPU_SYS_S |
		    1ull << DN_M_CTX_VOL | 1ull << DN_M_CTX_INVOL;
	/*
	 * Storage I/O from the counters /proc/self/io sums (read_bytes,
	 * write_bytes: one pair per thread, added into the process's when a
	 * thread ends), which getrusage gives in 512-byte blocks, for a
	 * third of the sampler's cost (docs/benchmarks.md, issue 26).  Block
	 * I/O and dirtied pages come in whole sectors and pages, so nothing
	 * is lost (test-sampler: equal byte for byte on a real file system;
	 * only a network file system's byte counts would round down).  The
	 * process's own threads, as for CPU and faults: /proc/self/io also
	 * adds reaped children, which devnet-node never has.
	 */
	if (rc == 0) {
		v[DN_M_IO_READ_BYTES] = (double)ru.ru_inblock * 512;
		v[DN_M_IO_WRITE_BYTES] = (double)ru.ru_oublock * 512;
	} else
		absent |= 1ull << DN_M_IO_READ_BYTES |
		    1ull << DN_M_IO_WRITE_BYTES;
	/* /proc/self/fd lists our own directory fd too */
	nfds = dn_procfs_count_fds(sp->fd_fds);
	v[DN_M_FDS] = nfds > 0 ? nfds - 1 : 0;
	/* no container (local runs): no cgroup figure, rather than a 0 */
	if (dn_procfs_read(sp->fd_cgmem, buf, sizeof(buf)) > 0)
		v[DN_M_CGROUP_MEM_BYTES] = (double)strtoull(buf, NULL, 10);
	else
		absent |= 1ull << DN_M_CGROUP_MEM_BYTES;
	return (absent);
}
