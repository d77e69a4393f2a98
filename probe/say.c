/*
 * say.c: devnet-probe's lines on stderr that carry a stable id
 * (DN-PROBE-START, DN-PROBE-EXIT, ...) for devnet and tests to grep.
 * Beneath both the event loop (loop.c) and its setup (loop-setup.c), so
 * that the loop calls its setup and never the reverse.  Not the child's
 * output (logpump.c).
 */
#include <stdarg.h>
#include <stdio.h>

#include "probe.h"

void
say(const char *id, const char *fmt, ...)
{
	va_list	ap;

	fprintf(stderr, "%s ", id);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
