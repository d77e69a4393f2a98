/*
 * alloc-shm.h: the layout of the allocation counter page shared by
 * libdevnet-alloc.so (alloc-shim.c, inside the measured program) and
 * devnet-probe (alloc-read.c, outside it).
 *
 * The probe creates the file (zeroed, this size, magic and version set)
 * and passes its path in DN_ALLOC_SHM; every process that loads the shim
 * maps it MAP_SHARED, bumps `attached` once, and claims one slot per
 * thread with an atomic add on `nslots`.  Only the owning thread writes a
 * slot (a fork child claims new ones), so updates are plain relaxed
 * stores; claims beyond DN_ASHM_SLOTS share the overflow slot with atomic
 * adds.  A slot records the pid that claimed it, so the reader can leave
 * the live heap of exited processes out.  The first process to map the
 * page writes the name of its allocator underneath (`named` 0 -> 1 -> 2).  Not a transport for anything
 * else; no locks, no pointers (the two sides map it at different
 * addresses).
 */
#ifndef DN_ALLOC_SHM_H
#define DN_ALLOC_SHM_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>

#define DN_ASHM_MAGIC	0x4d485341u	/* "ASHM" as LE bytes */
#define DN_ASHM_VERSION	2
#define DN_ASHM_SLOTS	4096
#define DN_ASHM_ENV	"DN_ALLOC_SHM"
#define DN_ASHM_NAME	48

struct dn_ashm_slot {
	alignas(64) _Atomic uint64_t allocs;
	_Atomic uint64_t	frees;
	_Atomic uint64_t	alloc_bytes;	/* usable bytes handed out */
	_Atomic uint64_t	free_bytes;	/* usable bytes given back */
	_Atomic int32_t		pid;		/* claimer; 0 = overflow */
};

struct dn_ashm {
	alignas(64) uint32_t	magic;
	uint32_t		version;
	_Atomic uint32_t	attached;	/* processes that mapped it */
	_Atomic uint32_t	nslots;		/* claims so far (may exceed
						   DN_ASHM_SLOTS) */
	_Atomic uint32_t	named;		/* 2: allocator is written */
	_Atomic uint32_t	mixed;		/* 1: another process of the
						   tree had another one */
	char			allocator[DN_ASHM_NAME]; /* "glibc",
					   "jemalloc", ..., or "own:FILE"
					   (the program's own malloc) */
	struct dn_ashm_slot	overflow;
	struct dn_ashm_slot	slots[DN_ASHM_SLOTS];
};

#endif
