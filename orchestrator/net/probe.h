/*
 * probe.h: the per-link probe of an emulated network (net/topo.h): a
 * thread that holds one UDP socket in every node's namespace and sends a
 * small numbered packet on every directed link it was given (all of them,
 * or a chosen set: plan/probe-links.c) RATE times a second; the
 * far end notes its one-way delay (one host, one CLOCK_MONOTONIC) and
 * echoes it, so the sender gets the RTT.  The probe is not the node's
 * traffic: it crosses the hub through the same rules, and so measures
 * what the conditions do.
 *
 * Each link keeps its last probes (at least five minutes of them) in a
 * ring; dn_probe_window reads the ones sent in a time window.
 */
#ifndef DN_NET_PROBE_H
#define DN_NET_PROBE_H

#include <stddef.h>
#include <stdint.h>

struct dn_net;
struct dn_probe;

/* What a window of one link's probes saw.  OWD_MS and RTT_MS are
 * malloc'd (dn_probe_stats_release). */
struct dn_probe_stats {
	uint64_t	 sent;		/* probes sent in the window */
	uint64_t	 crossed;	/* of them, arrived at the far end */
	uint64_t	 echoed;	/* of them, whose echo came back */
	double		*owd_ms;	/* one-way delays, in send order */
	size_t		 nowd;
	double		*rtt_ms;
	size_t		 nrtt;
};

/* A directed link: endpoint SRC -> DST (topo.h's node indices). */
struct dn_probe_link {
	int	 src, dst;
};

/*
 * Start probing every directed link of NET RATE_HZ (1..1000) times a
 * second.  NET must outlive the probe.  Returns 0, or -1 with ERR.  *PP
 * is the caller's: dn_probe_stop.
 */
int	 dn_probe_start(struct dn_probe **pp, const struct dn_net *net,
	    int rate_hz, char *err, size_t errlen);
/*
 * The same for the NLINKS directed links LINKS only (NULL: every link;
 * a link given twice is probed once).  Memory and probes grow with
 * NLINKS, not with the square of the endpoints.  A link outside NET is
 * an error (-1, ERR says which).
 */
int	 dn_probe_start_links(struct dn_probe **pp, const struct dn_net *net,
	    const struct dn_probe_link *links, size_t nlinks, int rate_hz,
	    char *err, size_t errlen);
/* 1 when P probes SRC -> DST (0 for a NULL P); how many links it probes. */
int	 dn_probe_probes(const struct dn_probe *p, int src, int dst);
size_t	 dn_probe_nlinks(const struct dn_probe *p);
/* What P cost so far: its thread's CPU time and the probes it sent
 * (echoes not counted); 0 and 0 for a NULL or stopped P. */
void	 dn_probe_cost(struct dn_probe *p, uint64_t *cpu_ns, uint64_t *sent);
/*
 * The probes of link SRC -> DST sent in [FROM_NS, TO_NS) (CLOCK_MONOTONIC
 * ns); none for a link P does not probe.  A probe still in flight
 * counts as not crossed: keep TO_NS a little (the link's delay and more)
 * before now.
 */
void	 dn_probe_window(struct dn_probe *p, int src, int dst,
	    uint64_t from_ns, uint64_t to_ns, struct dn_probe_stats *out);
void	 dn_probe_stats_release(struct dn_probe_stats *s);
/* The same window probe by probe, oldest first: *OUT (malloc'd, the
 * caller frees it) holds *N of them; OWD_MS / RTT_MS are NAN for a probe
 * (or its echo) that did not come. */
struct dn_probe_sample {
	uint64_t	 send_ns;
	double		 owd_ms, rtt_ms;
};
void	 dn_probe_samples(struct dn_probe *p, int src, int dst,
	    uint64_t from_ns, uint64_t to_ns, struct dn_probe_sample **out,
	    size_t *n);
/* Stop the thread, close the sockets, free P.  Accepts NULL. */
void	 dn_probe_stop(struct dn_probe *p);

#endif
