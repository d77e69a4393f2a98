/* wake.c: news for the main thread (see wake.h). */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>

#include "sys/wake.h"

static pthread_t	main_thread;
static atomic_int	main_known;

void
wake_init(sigset_t *set)
{
	main_thread = pthread_self();
	atomic_store(&main_known, 1);
	sigaddset(set, WAKE_SIG);
}

void
wake_main(void)
{
	if (atomic_load(&main_known))
		(void)pthread_kill(main_thread, WAKE_SIG);
}
