/*
 * sampler.h: the process half of a metrics sample, read from /proc/self
 * and getrusage(2) without allocating.  The files are opened once and
 * re-read with pread at offset 0; /proc/self/stat and /proc/self/io are
 * not read at all (getrusage has their faults, CPU times and I/O bytes
 * for less).
 *
 * Fills rss_bytes, hwm_bytes, threads, minflt, majflt, cpu_user_s,
 * cpu_sys_s, ctx_vol, ctx_invol, io_read_bytes, io_write_bytes, fds
 * and cgroup_mem_bytes; nothing else.  cgroup_mem_bytes is read from the
 * file named by $DN_CGROUP_MEM_FILE (the container providers set it to
 * the container's memory.usage_in_bytes or memory.current), else absent.
 * Not thread-safe: one sampler per thread.
 */
#ifndef DN_SAMPLER_H
#define DN_SAMPLER_H

#include <stdint.h>

struct dn_sampler {
	int	fd_status;	/* /proc/self/status */
	int	fd_fds;		/* /proc/self/fd (directory) */
	int	fd_cgmem;	/* $DN_CGROUP_MEM_FILE, -1 when unset */
};

/* Open the files.  Returns 0, or -1 with *CAUSE (caller frees). */
int	 dn_sampler_open(struct dn_sampler *sp, char **cause);
/* Close what is open; accepts a zeroed or half-opened sampler. */
void	 dn_sampler_close(struct dn_sampler *sp);
/*
 * Write the process metrics into VALUES (indexed by enum dn_metric_id,
 * at least DN_METRIC_COUNT entries).  Returns the metrics it could not
 * read as a bitmap (bit i: metric i), for the sample's absent set: a file
 * that cannot be read leaves its metrics at 0 and sets their bits, and
 * cgroup_mem_bytes is absent where $DN_CGROUP_MEM_FILE is unset (local
 * runs), never a 0.
 */
uint64_t dn_sampler_read(struct dn_sampler *sp, double *values);

#endif
