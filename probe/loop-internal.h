/*
 * loop-internal.h: what devnet-probe's event loop (loop.c) shares with
 * its setup and teardown (loop-setup.c): the run's state and the stderr
 * line tests grep.  Nothing else includes it.
 */
#ifndef DN_PROBE_LOOP_INTERNAL_H
#define DN_PROBE_LOOP_INTERNAL_H

#include <stdint.h>
#include <sys/types.h>

#include "metric-table.h"
#include "probe.h"

struct run {
	struct probe_opts	*o;
	struct probe_child	 child;
	struct tree		*tree;
	struct alloc_page	*page;
	int			 remove_page;
	int			 go;		/* COMMAND is a Go binary */
	struct bin_seen		*seen;		/* or execs one: binkind.c */
	char			*source;	/* allocation source, once
						   known (DN-PROBE-ALLOC) */
	int			 alloc_ok;	/* source is the shim's */
	char			*page_path;
	struct logpump		*pump;
	struct dn_sock		*sock;
	int			 sigfd;
	pid_t			 parent;	/* devnet; 0: none watched */
	struct dn_http		*http;		/* http ready checks, scrape */
	struct scrape		*scrape;
	/* The periodic scrape in flight, and its result for sample(). */
	int			 scraping;
	uint64_t		 scrape_check_ns;
	int			 skip_left;	/* samples until the next scrape */
	uint64_t		 gone_since_ns;	/* no collector pipe since */
	int			 have_cur_scrape;
	double			 cs_values[DN_METRIC_COUNT];
	uint64_t		 cs_present;
	struct dn_named		*cs_named;
	size_t			 cs_nn;
	/* The scrape taken when told to stop, for the final sample. */
	int			 have_last_scrape;
	double			 ls_values[DN_METRIC_COUNT];
	uint64_t		 ls_present;
	struct dn_named		*ls_named;
	size_t			 ls_nn;

	uint64_t		 start_ns;
	uint64_t		 next_sample_ns;
	uint64_t		 sample_seq;
	uint64_t		 other_seq;
	uint64_t		 dropped;

	int			 ready;
	int			 ready_timed_out;
	int			 stopping;
	int			 paused;	/* SIGSTOPped on SIGTSTP */
	int			 have_scrape;	/* cs_* hold a scrape */
	uint64_t		 kill_at_ns;	/* 0: no SIGKILL pending */
	int			 killed;
	int			 pipe_eof;
};

/* Start R (loop-setup.c): the process tree reader, the subreaper role,
 * the signalfd, the http client and scrape, COMMAND with its output pipe
 * and allocation counter, the collector socket.  0, or -1 with *CAUSE. */
int	 loop_setup(struct run *r, char **cause);
/* Close what loop_setup opened. */
void	 loop_teardown(struct run *r);

#endif
