/*
 * machine.h: the machine devnet runs on, as a run records it (runs.machine
 * and the machines table, docs/schema.md): the parts that make numbers
 * comparable, hashed into a fingerprint, and what is only informational.
 * Reads /proc, /sys and uname; knows no orchestrator types.
 */
#ifndef DN_SYS_MACHINE_H
#define DN_SYS_MACHINE_H

#include <stdint.h>

/* Hex digits of a fingerprint (the first 64 bits of a SHA-256). */
#define MACHINE_FP_LEN	16

struct machine {
	/* comparable: what the fingerprint hashes */
	char	 cpu_model[128];	/* "" when not readable */
	int	 cores;			/* physical cores, -1 unknown */
	int	 threads;		/* online logical CPUs, -1 unknown */
	int64_t	 mem_bytes;		/* MemTotal, -1 unknown */
	char	 kernel[128];		/* uname release */
	char	 arch[72];		/* uname machine */
	char	 provider[16];		/* local, docker, swarm */
	char	 limits[64];		/* "cpus=2 memory=1073741824", "none" */
	char	 version[32];		/* devnet's own */
	char	 fingerprint[MACHINE_FP_LEN + 1];
	/* informational */
	char	 hostname[256];
	double	 load1;			/* NAN when not readable */
	char	 governor[32];		/* cpu0's, "" when not readable */
};

/* Read this machine into M for nodes run by PROVIDER with LIMITS (NULL:
 * "none") by devnet VERSION, and compute its fingerprint: the SHA-256 of
 * the comparable parts, memory in whole GiB (what a kernel reserves at
 * boot does not split a machine). */
void	 machine_probe(struct machine *m, const char *provider,
	    const char *limits, const char *version);

#endif
