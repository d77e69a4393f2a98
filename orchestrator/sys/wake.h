/*
 * wake.h: news for the main thread (issue 26).  The runner's main thread
 * waits in sigtimedwait(2) (run/signals.c: signals are its clock); a
 * thread with news it is waiting for (the collector, a node's first
 * HELLO) ends that wait at once with wake_main instead of leaving it to
 * the next tick.  The wake is WAKE_SIG, blocked in every thread from
 * before the first one starts and taken only by that wait; it is a
 * standard signal, so wakes sent while the main thread is busy merge
 * into one and the next wait returns at once: none is lost, none piles
 * up.  SIGURG because nothing else here raises it (the kernel sends it
 * only to a socket's F_SETOWN owner, which devnet never sets) and its
 * default is to be ignored, so a stray one harms no process.
 */
#ifndef DN_WAKE_H
#define DN_WAKE_H

#include <signal.h>

#define WAKE_SIG	SIGURG

/* On the main thread, before any other thread exists: it is the one to
 * wake, and WAKE_SIG is added to SET (the set to block and to wait
 * for). */
void	wake_init(sigset_t *set);
/* Wake the main thread; a no-op before wake_init (commands that never
 * wait). */
void	wake_main(void);

#endif
