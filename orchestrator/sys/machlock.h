/*
 * machlock.h: what two devnets on one machine must not share (issue 36):
 * the emulated network's CPU time (network conditions: two emulators
 * side by side failed each other's latency proofs) and pinned CPUs.  A
 * named lock per such thing, an flock(2) on /run/devnet/NAME.lock
 * ("conditions", "cpu-3"), which holds "pid=PID since=UNIX db=PATH" of
 * its holder; the kernel lets it go when the holder exits, SIGKILL too,
 * so nothing is left to sweep.  Knows no orchestrator types.
 */
#ifndef DN_SYS_MACHLOCK_H
#define DN_SYS_MACHLOCK_H

/*
 * Try to take every lock of NAMES (NULL-terminated) at once, for this
 * process, writing DB into them.  0: all taken (held until
 * dn_machlock_release or exit).  1: one is held by another process:
 * none is taken, *HOLDER says which and by whom ("network conditions
 * held by devnet pid 123 (db /x/devnet.db) for 12 s"; caller frees).
 * -1 with *CAUSE: a lock file cannot be made.
 */
int	 dn_machlock_try(const char *const *names, const char *db,
	    char **holder, char **cause);

/* Let go of every lock this process holds. */
void	 dn_machlock_release(void);

#endif
