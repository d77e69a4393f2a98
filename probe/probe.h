/*
 * probe.h: the modules of devnet-probe, the program that runs a foreign
 * node for devnet (docs/probe.md).  One job per file:
 *
 *   main.c       entry point: parse, run, exit with the child's status
 *   args.c       the command line into struct probe_opts
 *   child.c      fork/exec of COMMAND, its process group, signals, reaping
 *   tree.c       /proc metrics of the child's whole process tree
 *   taskstats.c  its context switches through netlink, when allowed
 *   alloc-read.c the allocation counter page (alloc-shm.h), reader side
 *   binkind.c    what COMMAND is (a Go binary?), from its ELF file
 *   logpump.c    the child's stdout+stderr: out file, log_lines, extractors
 *   ready.c      ready checks (tcp, http, log, delay)
 *   scrape.c     the Prometheus scrape (--prom-url, --prom-map, --prom-keep)
 *   loop.c       the event loop: samples, HELLO, stop sequence
 *   loop-setup.c what the loop opens before it starts and closes after:
 *                called by loop.c, never calling into it
 *   say.c        the lines on stderr with a stable id (DN-PROBE-START)
 *   preflight.c  --preflight-bind/--preflight-dial: a swarm host's check;
 *                --hold: a container that only holds its namespaces
 *
 * Nothing here is shared with the orchestrator or devnet-node; the wire
 * protocol and transport come from metrics/wire, HTTP (libcurl) and the
 * Prometheus text format from metrics/http (http.h, prom.h).
 */
#ifndef DN_PROBE_H
#define DN_PROBE_H

#include <sys/resource.h>
#include <sys/types.h>

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol.h"

/* Exit statuses of the probe itself (the child's own pass through). */
#define PROBE_EXIT_READY_TIMEOUT	124
#define PROBE_EXIT_ERROR		125	/* usage or probe failure */
/* --preflight-bind/--preflight-dial: a check failed (preflight.c) */
#define PREFLIGHT_EXIT_FAILED		3

/* --- args.c ---------------------------------------------------------- */
enum ready_kind { READY_TCP, READY_HTTP, READY_LOG, READY_DELAY };

struct probe_ready {
	enum ready_kind	 kind;
	char		*spec;		/* as given, for messages */
	char		*host;		/* tcp */
	char		*port;		/* tcp */
	char		*url;		/* http */
	regex_t		 re;		/* log */
	int		 have_re;
	int64_t		 ms;		/* delay */
	int		 done;
	/* ready.c's schedule and what the last try got */
	uint64_t	 next_ns;	/* not tried again before */
	int		 gap_ms;	/* the last gap, doubling */
	unsigned	 tries;
	char		 last[160];	/* "status 404 (...)", "refused" */
};

struct probe_extractor {
	char		*name;
	char		*pattern;	/* as given, for messages */
	regex_t		 re;
	int		 have_re;
	int		 table_id;	/* metric-table id, or -1 (NAMED) */
	int		 have;		/* a value was captured */
	double		 value;		/* the last one */
	int		 counter;	/* --counter NAME: sent as a counter */
	/* logpump.c: lines that matched, and of them those whose capture
	 * was no number (the last such capture, cut short) */
	uint64_t	 matched, not_number;
	char		 bad[40];
};

/* --prom-map DEVNET=EXPO (devnet = DEVNET) and --prom-keep EXPO (devnet =
 * EXPO): one exposition name summed over its label sets, sent under the
 * devnet name. */
struct probe_prom {
	char		*devnet;	/* the name devnet stores */
	char		*expo;		/* the exposition sample name */
	int		 table_id;	/* metric-table id, or -1 (NAMED) */
	int		 implied;	/* added by the probe (Go's heap) */
};

/* --json-map NAME=PATH: the number at PATH of --json-url's page. */
struct probe_json {
	char		*name;		/* the name devnet stores */
	char		*path;		/* json-path.h */
	int		 table_id;	/* metric-table id, or -1 (NAMED) */
	int		 counter;	/* --counter NAME */
	int		 said;		/* its first error said (scrape.c) */
};

struct probe_opts {
	char			**argv;		/* COMMAND ARGS..., in argv */
	const char		 *out_path;	/* NULL: our stdout */
	const char		 *metrics_url;	/* NULL: no reporting */
	uint64_t		  token;
	uint32_t		  index;
	int			  interval_ms;
	int			  count_allocs;
	char			 *alloc_lib;
	char			 *alloc_shm;	/* NULL: made up, removed */
	struct probe_extractor	 *ext;
	size_t			  next;
	struct probe_ready	 *ready;
	size_t			  nready;
	int			  ready_timeout_ms;
	int			  stop_signal;
	int			  stop_grace_ms;
	char			**env_add;	/* "K=V", NULL-terminated */
	size_t			  nenv;
	/* a clock_skew (issue 39): libfaketime's environment for COMMAND,
	 * unless the probe moves its clock itself (clock-trap.c: a Go or
	 * static COMMAND); the offset file and the witness for that */
	char			**clock_env;	/* "K=V", NULL-terminated */
	size_t			  nclock_env;
	const char		 *clock_file;
	const char		 *clock_witness;
	const char		 *cwd;
	const char		 *user;		/* COMMAND runs as; NULL: ours */
	const char		 *prom_url;	/* NULL: no scrape */
	int			  scrape_every;	/* scrape every Nth sample */
	struct probe_prom	 *prom;
	size_t			  nprom;
	const char		 *json_url;	/* NULL: no JSON scrape */
	struct probe_json	 *json;
	size_t			  njson;
};

/* Room for the NAMED entries of one sample: every extractor and mapping,
 * and probe_scrape_failures. */
#define PROBE_NAMED_CAP(o)	((o)->next + (o)->nprom + (o)->njson + 1)

extern const char probe_usage[];

/* Parse ARGV into *O.  Returns 0, 1 for --help, or -1 with *CAUSE (caller
 * frees).  *O owns what it allocated: probe_args_release. */
int	 probe_args_parse(struct probe_opts *o, int argc, char **argv,
	    char **cause);
void	 probe_args_release(struct probe_opts *o);
/* Add --prom-map DEVNET=EXPO unless DEVNET is mapped already (then 1).
 * Returns 0, 1, or -1 with *CAUSE. */
int	 probe_args_add_prom(struct probe_opts *o, const char *devnet,
	    const char *expo, char **cause);

/* --- child.c --------------------------------------------------------- */
struct clock_trap;
struct probe_child {
	pid_t		   pid;
	int		   status;	/* wait status once reaped */
	int		   reaped;
	struct clock_trap *trap;	/* its clock moved by us, or NULL */
};

/*
 * Fork and exec O->argv with O's environment additions (plus EXTRA_ENV,
 * NULL-terminated, may be NULL), stdout and stderr on OUT_FD, stdin on
 * /dev/null, in its own process group, with PR_SET_PDEATHSIG(SIGKILL).
 * Call from the main thread.  Returns 0, or -1 with *CAUSE; an exec
 * failure shows as exit 127 with the reason on OUT_FD.
 */
int	 child_start(struct probe_child *c, const struct probe_opts *o,
	    char *const *extra_env, int out_fd, char **cause);
/* O->user (--user), looked up once for the probe's life: NULL with
 * *CAUSE when there is no such user. */
struct dn_user;
const struct dn_user *child_user(const struct probe_opts *o, char **cause);
/* Send SIG to C's process group (C itself if the group is gone). */
void	 child_signal(struct probe_child *c, int sig);
/* Reap any exited child of ours (COMMAND or an orphan of its tree)
 * without waiting: its pid, wait status and resource use, or 0. */
pid_t	 child_reap_any(int *status, struct rusage *ru);
/* The probe's exit status for wait status STATUS (code or 128+signal). */
int	 child_exit_code(int status);
/*
 * Ask for SIG (not the SIGKILL devnet's fork set) when the probe's parent
 * dies, so that the probe can stop its whole tree first (issue 19 #5).
 * Returns the parent's pid, or 0 when there is no parent to watch (pid 1
 * or none: a container's init, or a probe started under init).
 */
pid_t	 child_watch_parent(int sig);

/* --- clock-trap.c ---------------------------------------------------- */
/* Whether O's COMMAND gets its wall clock from us (--clock-file, and a
 * Go or static program, which libfaketime cannot reach). */
int	 clock_trap_wanted(const struct probe_opts *o);
/* In the child, after fork, before exec: the seccomp filter, its
 * listener's fd sent over SOCK, PTRACE_TRACEME, SIGSTOP.  -1 (errno) on
 * failure.  Async-signal-safe. */
int	 clock_trap_child(int sock);
/* In the probe: the listener from SOCK, the thread that answers the
 * child PID's clock reads, and the child carried through its exec with
 * its vDSO hidden.  0, or -1 with *CAUSE (*OUT to clock_trap_stop all
 * the same). */
int	 clock_trap_start(struct clock_trap **out, const struct probe_opts *o,
	    int sock, pid_t pid, char **cause);
void	 clock_trap_stop(struct clock_trap *ct);

/* --- tree.c ---------------------------------------------------------- */
struct tree;

/* Track the descendants of this process (the probe must be a child
 * subreaper, so orphans stay in the tree).  Returns 0 or -1 with *CAUSE. */
int	 tree_open(struct tree **tp, char **cause);
void	 tree_free(struct tree *t);
/*
 * Walk the tree and write rss_bytes, hwm_bytes, threads, minflt, majflt,
 * cpu_user_s, cpu_sys_s, ctx_vol, ctx_invol, io_read_bytes,
 * io_write_bytes and fds into VALUES (indexed by metric id).  Counters
 * never go down (tree.c says how exited processes are kept).
 */
void	 tree_read(struct tree *t, double *values);
/* Account a process this probe reaped (RU from wait4). */
void	 tree_add_reaped(struct tree *t, const struct rusage *ru);
/* Where ctx_vol and ctx_invol come from: "taskstats" or "proc" (then
 * *WHY says why not taskstats). */
const char *tree_ctx_source(const struct tree *t, const char **why);
/* FN(PID, ARG) for each process alive in the tree at the last
 * tree_read. */
void	 tree_each(struct tree *t, void (*fn)(pid_t, void *), void *arg);
/* 1 if PID was alive in the tree at the last tree_read. */
int	 tree_has(struct tree *t, pid_t pid);
/* Send SIG to every descendant (found afresh).  Returns how many. */
int	 tree_signal_all(struct tree *t, int sig);

/* --- taskstats.c ----------------------------------------------------- */
struct tstats;

/* Open a taskstats query socket and try it on ourselves.  Returns 0, or
 * -1 with *CAUSE (caller frees): no family, no CAP_NET_ADMIN, or
 * DN_PROBE_TASKSTATS=0. */
int	 tstats_open(struct tstats **tp, char **cause);
/* Accepts NULL. */
void	 tstats_close(struct tstats *t);
struct tstats_proc {
	pid_t		pid;		/* in: a process (thread group) */
	int		ok;		/* out: answered */
	uint64_t	vol, invol;	/* context switches, all threads */
};
/* Ask about the N processes of P at once (one sendmsg and one recvmmsg
 * per 64).  A process that is gone answers nothing (ok 0).  Returns 0,
 * or -1 with errno when the socket failed. */
int	 tstats_read(struct tstats *t, struct tstats_proc *p, size_t n);
/* The voluntary and involuntary context switches of process TGID, all
 * its threads.  Returns 0, or -1 with errno (ESRCH: gone). */
int	 tstats_ctx(struct tstats *t, pid_t tgid, uint64_t *vol,
	    uint64_t *invol);

/* --- alloc-read.c ---------------------------------------------------- */
struct alloc_page;
struct alloc_totals {
	uint64_t	allocs, frees, alloc_bytes, heap_live_bytes;
};

/* Create the counter file PATH (must not exist) and map it read-only.
 * Returns 0 or -1 with *CAUSE. */
int	 alloc_page_create(struct alloc_page **pp, const char *path,
	    char **cause);
/* Remove the file (when REMOVE) and unmap; accepts NULL. */
void	 alloc_page_destroy(struct alloc_page *p, int remove);
/* Sum the counters into *TOT; heap_live_bytes counts only slots of pids
 * T has alive.  Returns 0, or -1 when no process ever mapped the page
 * (allocations unavailable). */
int	 alloc_page_read(struct alloc_page *p, struct tree *t,
	    struct alloc_totals *tot);

/* The allocator the page names ("glibc", "jemalloc", ..., "own:FILE"
 * when the program defines malloc itself), or NULL when no process named
 * one yet; *MIXED set when a process of the tree had another one.  The
 * string lives as long as P. */
const char *alloc_page_allocator(struct alloc_page *p, int *mixed);

/* --- binkind.c ------------------------------------------------------- */
/* (what a file is: metrics/util/progkind.h, dn_path_find and dn_elf_is_go) */
/*
 * 1 if a process of tree T runs a Go binary now: COMMAND may be a wrapper
 * (a shell script, `sh -c 'exec etcd'`) that execs one later (issue 25).
 * Each process's /proc/PID/exe is read again only when its file changed
 * (an exec); *SEEN keeps what was read (bin_seen_free).
 */
struct bin_seen;
int	 bin_tree_has_go(struct tree *t, struct bin_seen **seen);
void	 bin_seen_free(struct bin_seen *seen);

/* --- logpump.c ------------------------------------------------------- */
struct logpump;

/* Read FD (the child's output, made non-blocking), append it to OUT_PATH
 * (NULL: our stdout), count lines, run the extractors and the log ready
 * checks of O.  Returns 0 or -1 with *CAUSE. */
int	 logpump_open(struct logpump **lp, int fd, struct probe_opts *o,
	    char **cause);
/* Read what is there.  Returns 0, or 1 once the pipe reached EOF. */
int	 logpump_read(struct logpump *lp);
int	 logpump_fd(struct logpump *lp);
uint64_t logpump_lines(struct logpump *lp);
/* Say DN-PROBE-UNMEASURED for each extractor that never captured a
 * number: no line matched its pattern, or none captured a number. */
void	 logpump_say_unmeasured(struct logpump *lp);
/* Flush a partial last line (at EOF) through the extractors, close. */
void	 logpump_close(struct logpump *lp);

/* --- ready.c --------------------------------------------------------- */
struct dn_http;

/* The schedule of a check's tries: at once, then READY_GAP_FIRST_MS
 * later, the gap doubling up to READY_GAP_MAX_MS (docs/probe.md). */
#define READY_GAP_FIRST_MS	10
#define READY_GAP_MAX_MS	250

/* Run the checks of O that are not done yet and are due (tcp, http
 * through HTTP, delay since START_NS; log checks are marked by the
 * pump).  1 when all are done. */
int	 ready_poll(struct probe_opts *o, struct dn_http *http,
	    uint64_t start_ns);
/* When the next try of a pending check is due (0: none pending). */
uint64_t ready_next_ns(const struct probe_opts *o);
/* The first check not done, for messages (NULL: none). */
const struct probe_ready *ready_pending(const struct probe_opts *o);

/* --- scrape.c -------------------------------------------------------- */
struct scrape;

/* Prepare the scrape of O->prom_url through HTTP (owned by the caller).
 * Returns 0 or -1 with *CAUSE. */
int	 scrape_open(struct scrape **sp, const struct probe_opts *o,
	    struct dn_http *http, char **cause);
/* Accepts NULL. */
void	 scrape_close(struct scrape *s);
/*
 * Fetch and read the page once, within TIMEOUT_MS.  On success each
 * --prom-map into the table sets VALUES[id] and its bit in *PRESENT, and
 * the others (and every --prom-keep) are appended to NAMED (*NN entries
 * so far, room for CAP).  A failed scrape (no answer, status not 2xx, a
 * mapped name missing, malformed or not finite) leaves those metrics out,
 * never 0, and is counted.  Returns 0, or -1 when the page could not be
 * had at all.
 */
int	 scrape_run(struct scrape *s, int timeout_ms, double *values,
	    uint64_t *present, struct dn_named *named, size_t *nn,
	    size_t cap);
/*
 * scrape_run in two steps, for the event loop: scrape_start sends the
 * GET and returns at once (-1: failed already, counted); scrape_step
 * reads what has arrived after waiting at most WAIT_MS for it, and
 * returns 1 while the GET is in flight, else what scrape_run returns,
 * with the same outputs.  Call scrape_step at least every TIMEOUT_MS.
 */
int	 scrape_start(struct scrape *s, int timeout_ms);
int	 scrape_step(struct scrape *s, int wait_ms, double *values,
	    uint64_t *present, struct dn_named *named, size_t *nn,
	    size_t cap);
/* Scrapes that failed so far, and scrapes done. */
uint64_t scrape_failures(const struct scrape *s);
uint64_t scrape_count(const struct scrape *s);
/*
 * Say DN-PROBE-UNMEASURED for each --prom-map, --prom-keep and --json-map
 * that never had a value, with what the probe knows of why: its page was
 * never scraped, every GET of it failed (the last error or HTTP status,
 * how many), or the page had no such sample or path (the last error).
 */
void	 scrape_say_unmeasured(const struct scrape *s);

/* --- loop.c ---------------------------------------------------------- */
/* Run the whole probe; returns the exit status of the process. */
int	 probe_run(struct probe_opts *o);

/* --- say.c ---------------------------------------------------------- */
/* One line on stderr with a stable id tests can grep: ID, a space, FMT. */
void	 say(const char *id, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/* --- preflight.c ---------------------------------------------------- */
/* ARGV: --preflight-bind LIST and/or --preflight-dial LIST; the exit
 * status. */
int	 probe_preflight(int argc, char **argv);
/* --hold: wait for SIGTERM, SIGINT or SIGHUP; the exit status (0). */
int	 probe_hold(void);

#endif
