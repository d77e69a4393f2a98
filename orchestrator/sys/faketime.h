/*
 * faketime.h: libfaketime's shared objects (a POSIX semaphore and a
 * shared memory segment) for a node whose clock a clock_skew event
 * moves, made and removed by devnet.  Left to itself, libfaketime makes
 * them in the first process that loads it (/dev/shm/faketime_shm_PID
 * and sem.faketime_sem_PID) and removes them in that process's exit
 * handler, which a node stopped by a signal never runs, and which a
 * `sh -c '... exec X'` command never has (X inherits the names, not the
 * ownership): one pair left in /dev/shm per trial, measured.  Given
 * FAKETIME_SHARED ("SEM SHM") naming objects that exist, it only opens
 * them; devnet makes them before the node starts and removes them after
 * it ends.  The names carry devnet's pid, so that dn_faketime_sweep
 * finds the ones a killed devnet left.  Not here: the rest of the
 * clock's environment (plan/clock-env.c), when (run/faults.c).
 */
#ifndef DN_FAKETIME_H
#define DN_FAKETIME_H

#include <stddef.h>

/* The name ("/devnet-ft-PID-HASH-K") of node K's objects in the trial
 * whose directory is RUN_DIR, for sem_open and shm_open alike. */
void	 dn_faketime_name(const char *run_dir, int k, char *buf, size_t cap);

/* Make NAME's semaphore and segment, the segment as libfaketime 0.9.10
 * makes its own (no ticks, no start time yet).  0, or -1 with *CAUSE. */
int	 dn_faketime_create(const char *name, char **cause);

/* Remove NAME's objects (gone already: nothing). */
void	 dn_faketime_remove(const char *name);

/* Remove the objects of devnets that are gone; how many pairs. */
int	 dn_faketime_sweep(void);

#endif
