/*
 * log.c: the node's log lines (nlog), one timestamped line with a stable
 * id each, from any thread.  Not where the log file is opened or closed
 * (main in node.c).
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "node-internal.h"

/* One line "2026-12-02T17:00:00.123Z ID text" to the log (and stderr for
 * DN-NODE-ERROR).  Thread-safe; counts log_lines. */
void __attribute__((format(printf, 3, 4)))
nlog(struct node *n, const char *id, const char *fmt, ...)
{
	char		 line[1024];
	struct timespec	 ts;
	struct tm	 tm;
	va_list		 ap;
	int		 len, k;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	len = snprintf(line, sizeof(line),
	    "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ %s ", tm.tm_year + 1900,
	    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
	    ts.tv_nsec / 1000000, id);
	va_start(ap, fmt);
	k = vsnprintf(line + len, sizeof(line) - (size_t)len - 1, fmt, ap);
	va_end(ap);
	if (k < 0)
		k = 0;
	len += k;
	if ((size_t)len > sizeof(line) - 2)
		len = (int)sizeof(line) - 2;
	line[len++] = '\n';
	if (strcmp(id, "DN-NODE-ERROR") == 0)
		(void)!write(STDERR_FILENO, line, (size_t)len);
	if (n->logfd >= 0) {
		pthread_mutex_lock(&n->loglock);
		(void)!write(n->logfd, line, (size_t)len);
		pthread_mutex_unlock(&n->loglock);
		atomic_fetch_add(&n->log_lines, 1);
	}
}
