/*
 * loadgen-internal.h: internal to the load generator, shared only by
 * loadgen.c (the front door, the transfer kind), pacing.c (schedule,
 * pick, wait, send lag), loadgen-http.c (the http kind) and loadgen-cmd.c
 * (the command kind).
 * Everyone else uses loadgen.h.
 */
#ifndef DN_LOADGEN_INTERNAL_H
#define DN_LOADGEN_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "trial/loadgen.h"
#include "trial/trial.h"

#define BATCH_MAX	4096	/* transactions per message */
#define SPIN_NS		300000	/* yield instead of sleep this close */
#define SPIN_MAX_TPS	1000	/* from here: batches, no per-tx spin */
#define TICK_NS		1000000	/* from SPIN_MAX_TPS: one round per ms */
/* Whole-run send-lag histogram: bucket 0 below 1 µs, bucket b >= 1 holds
 * [LAG_GROWTH^(b-1), LAG_GROWTH^b) µs; 2,048 buckets reach ~12 minutes. */
#define LAG_BUCKETS	2048
#define LAG_GROWTH	1.01

struct lg_http;
struct lg_tcp;
struct lg_cmd;

struct loadgen {
	struct trial	*t;
	struct dn_sock	**socks;	/* transfer only */
	struct lg_tcp	*tcp;		/* transfer, emulated network */
	int		 n;
	pthread_t	 thread;
	int		 started;
	atomic_int	 stop;

	/* Counters and lags, published as trial->load for the collector;
	 * load.mu also guards the lag histogram (one lock per send). */
	struct trial_load load;
	uint64_t	 lag_hist[LAG_BUCKETS];
	uint64_t	 lag_n;
	double		 lag_max;

	uint64_t	 rng;
	uint64_t	*nonces;
	double		*zipf_cdf;	/* NULL = uniform */
	uint32_t	 accounts;	/* http: the key space */
	uint8_t		**bufs;		/* per node: header + batch */
	uint32_t	*counts;
	uint64_t	 seq;

	struct lg_http	*http;		/* kind http */
	struct lg_cmd	*cmd;		/* kind command */

	int		 spin;		/* yield the last SPIN_NS */
	atomic_int	 realtime;	/* SCHED_FIFO granted */
};

/* loadgen-http.c: set up the multi handle and the compiled templates;
 * the thread; free (accepts a loadgen without http). */
int	 loadgen_http_create(struct loadgen *l, char **cause);
void	*loadgen_http_main(void *arg);
void	 loadgen_http_free(struct loadgen *l);

/* loadgen-tcp.c: the transfer load through the emulated network, over
 * TCP connections made in the load namespace (trial_load_ns): connect to
 * every node's in_url; send one message to node K (0, or -1 when it could
 * not be queued: not connected, or too much waiting); write what waits;
 * record each connection's RTT (facts), close and free (accepts a
 * loadgen without them; only once: the facts are the first close's). */
int	 loadgen_tcp_create(struct loadgen *l, char **cause);
int	 loadgen_tcp_send(struct loadgen *l, int k, const uint8_t *msg,
	    size_t len);
void	 loadgen_tcp_pump(struct loadgen *l);
void	 loadgen_tcp_free(struct loadgen *l);

/* loadgen-cmd.c: expand the argv; start it (main thread: it forks);
 * the thread that reads its DN-LOAD lines until l->stop (a last read
 * after it); stop it (SIGTERM, grace, SIGKILL) and record its exit;
 * free. */
int	 loadgen_cmd_create(struct loadgen *l, char **cause);
int	 loadgen_cmd_start(struct loadgen *l, char **cause);
void	*loadgen_cmd_main(void *arg);
void	 loadgen_cmd_stop(struct loadgen *l);
void	 loadgen_cmd_free(struct loadgen *l);

#endif
