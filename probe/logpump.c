/*
 * logpump.c: the child's stdout+stderr (one pipe) into the out file, with
 * log_lines counted and the log extractors and log ready checks applied
 * to each complete line.  Not a log parser beyond that, and it never
 * blocks the child longer than a write to the out file takes.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe.h"
#include "xalloc.h"

#define LINE_MAX_MATCH	4096	/* bytes of a line the regexes see */

struct logpump {
	int			 fd;
	int			 out;
	int			 own_out;
	struct probe_opts	*o;
	uint64_t		 lines;
	char			 line[LINE_MAX_MATCH + 1];
	size_t			 nline;
};

int
logpump_open(struct logpump **lpp, int fd, struct probe_opts *o,
    char **cause)
{
	struct logpump	*lp;

	lp = dn_xcalloc(1, sizeof(*lp));
	lp->fd = fd;
	lp->o = o;
	lp->out = STDOUT_FILENO;
	if (o->out_path != NULL) {
		lp->out = open(o->out_path,
		    O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (lp->out == -1) {
			*cause = dn_xasprintf("cannot open '%s': %s",
			    o->out_path, strerror(errno));
			free(lp);
			return (-1);
		}
		lp->own_out = 1;
	}
	(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	*lpp = lp;
	return (0);
}

int
logpump_fd(struct logpump *lp)
{
	return (lp->fd);
}

uint64_t
logpump_lines(struct logpump *lp)
{
	return (lp->lines);
}

/* One complete line (NUL-terminated, at most LINE_MAX_MATCH bytes). */
static void
on_line(struct logpump *lp, const char *line)
{
	struct probe_opts	*o = lp->o;
	regmatch_t		 m[2];
	size_t			 i;

	for (i = 0; i < o->next; i++) {
		struct probe_extractor	*e = &o->ext[i];
		char			 num[64], *end;
		size_t			 len;
		double			 v;
		int			 cut;

		if (regexec(&e->re, line, 2, m, 0) != 0 || m[1].rm_so < 0)
			continue;
		e->matched++;
		len = (size_t)(m[1].rm_eo - m[1].rm_so);
		cut = len >= sizeof(num);	/* no number; said cut short */
		if (cut)
			len = sizeof(num) - 1;
		memcpy(num, line + m[1].rm_so, len);
		num[len] = '\0';
		v = strtod(num, &end);
		if (cut || len == 0 || end == num || *end != '\0' ||
		    !isfinite(v)) {
			e->not_number++;
			if (len >= sizeof(e->bad))
				len = sizeof(e->bad) - 1;
			memcpy(e->bad, num, len);
			e->bad[len] = '\0';
			continue;
		}
		e->value = v;
		e->have = 1;
	}
	for (i = 0; i < o->nready; i++) {
		struct probe_ready	*r = &o->ready[i];

		if (r->kind == READY_LOG && !r->done &&
		    regexec(&r->re, line, 0, NULL, 0) == 0)
			r->done = 1;
	}
}

static void
write_all(int fd, const char *buf, size_t len)
{
	ssize_t	w;

	while (len > 0) {
		w = write(fd, buf, len);
		if (w == -1 && errno == EINTR)
			continue;
		if (w <= 0)
			return;	/* out file full or gone: keep draining */
		buf += w;
		len -= (size_t)w;
	}
}

static void
scan(struct logpump *lp, const char *buf, size_t n)
{
	const char	*p = buf, *nl;

	while (n > 0) {
		size_t	chunk, take;

		nl = memchr(p, '\n', n);
		chunk = nl != NULL ? (size_t)(nl - p) : n;
		take = chunk;
		if (take > LINE_MAX_MATCH - lp->nline)
			take = LINE_MAX_MATCH - lp->nline;
		memcpy(lp->line + lp->nline, p, take);
		lp->nline += take;
		if (nl == NULL)
			break;
		lp->line[lp->nline] = '\0';
		lp->lines++;
		on_line(lp, lp->line);
		lp->nline = 0;
		p = nl + 1;
		n -= chunk + 1;
	}
}

int
logpump_read(struct logpump *lp)
{
	char	buf[65536];
	ssize_t	n;
	int	rounds = 0;

	/* A bounded number of reads per call, so a flooding child cannot
	 * starve the sample schedule. */
	while (rounds++ < 16) {
		n = read(lp->fd, buf, sizeof(buf));
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return (0);	/* EAGAIN */
		if (n == 0)
			return (1);
		write_all(lp->out, buf, (size_t)n);
		scan(lp, buf, (size_t)n);
	}
	return (0);
}

void
logpump_say_unmeasured(struct logpump *lp)
{
	const struct probe_opts	*o = lp->o;
	size_t			 i;

	for (i = 0; i < o->next; i++) {
		const struct probe_extractor *e = &o->ext[i];

		if (e->have)
			continue;
		if (e->matched == 0)
			say("DN-PROBE-UNMEASURED", "%s: no line of the output "
			    "matched '%s' (%llu lines read)", e->name,
			    e->pattern, (unsigned long long)lp->lines);
		else
			say("DN-PROBE-UNMEASURED", "%s: %llu lines matched "
			    "'%s', but none captured a number (the last "
			    "capture: '%s')", e->name,
			    (unsigned long long)e->matched, e->pattern,
			    e->bad);
	}
}

void
logpump_close(struct logpump *lp)
{
	if (lp == NULL)
		return;
	if (lp->nline > 0) {
		lp->line[lp->nline] = '\0';
		lp->lines++;
		on_line(lp, lp->line);
	}
	close(lp->fd);
	if (lp->own_out)
		close(lp->out);
	free(lp);
}
