/*
 * procfs.h: reading and parsing /proc files without allocating: the
 * helpers that devnet-node's sampler (metrics/agent/sampler.c, its own
 * process) and devnet-probe (probe/tree.c, a whole process tree) share.
 * Which files to open and what the numbers mean stays with the callers;
 * this is not a process-table reader.
 */
#ifndef DN_PROCFS_H
#define DN_PROCFS_H

#include <sys/types.h>

/*
 * Read the whole file at FD (re-read with pread at offset 0, so a file
 * opened once serves every sample) into BUF of CAP bytes, NUL-terminated.
 * Returns the length, or -1 when FD is negative or the read fails.
 */
ssize_t	 dn_procfs_read(int fd, char *buf, size_t cap);

/*
 * The number after NAME at the start of a line of BUF, e.g. NAME
 * "VmRSS:" in "VmRSS:\t  123 kB" gives 123 (the unit is the caller's);
 * 0 when no line starts with NAME.
 */
unsigned long long dn_procfs_field(const char *buf, const char *name);

/*
 * Parse a /proc/PID/stat (or task/TID/stat) text into F: F[i] is field i
 * (1-based, as in proc(5)) for 4 <= i < NF; fields not reached stay as
 * they were, and a negative one (tpgid, priority) comes out as strtoull
 * gives it, wrapped.  The command name may hold spaces and parentheses,
 * so parsing starts after the last ')'.  Returns the state
 * character (field 3), or 0 when BUF is not a stat line.
 */
char	 dn_procfs_stat(const char *buf, unsigned long long *f, int nf);

/*
 * Walk the directory open at DIRFD (rewound first) with getdents64: each
 * entry but "." and ".." goes to FN (may be NULL) with ARG.  Returns how
 * many there were; 0 when DIRFD is negative or cannot be read.
 */
int	 dn_procfs_dirents(int dirfd, void (*fn)(void *, const char *),
	    void *arg);

/*
 * How many files the process whose /proc/PID/fd is open at DIRFD has open
 * (the directory's own fd included, when it is the caller's): one fstat,
 * since Linux 6.2 reports the count as the directory's size; the
 * directory's entries on older kernels.  0 when DIRFD is negative.
 */
int	 dn_procfs_count_fds(int dirfd);

#endif
