/*
 * docker.h: the one module that runs Docker.  Everything devnet asks of
 * a Docker engine goes through here, as the `docker` CLI fork/exec'd
 * with argv arrays (never a shell), its output captured.
 *
 * Every object devnet creates carries labels: devnet.run=<run id>,
 * devnet.trial=<variant>/<trial index> and devnet.owner=<host>:<pid>:
 * <start time> of the devnet process that created it, so that a trial's
 * objects can be removed when it ends and a later devnet can remove what
 * a killed one left (dk_sweep).
 *
 * Not here: what a node is, scenarios, the runner (provider-docker.c,
 * provider-swarm.c use this); what goes into an image (image.c).
 */
#ifndef DN_DOCKER_H
#define DN_DOCKER_H

#include <stddef.h>
#include <stdint.h>

#define DK_LABEL_RUN	"devnet.run"
#define DK_LABEL_TRIAL	"devnet.trial"
#define DK_LABEL_OWNER	"devnet.owner"

/*
 * Run `docker ARGS...` (ARGS NULL-terminated, without "docker"), stdin
 * from IN_PATH when not NULL.  Returns 0 when it exits 0, with its stdout
 * in *OUT (caller frees; OUT may be NULL); -1 with *CAUSE naming the
 * command and docker's last line of stderr.
 */
int	 dk_cmd(const char *const *args, const char *in_path, char **out,
	    char **cause);
/* The same on ENGINE (`docker --host ENGINE`: unix://, tcp://, ssh://
 * URL of another host's engine); NULL: this one ($DOCKER_HOST or the
 * default socket). */
int	 dk_cmd_at(const char *engine, const char *const *args,
	    const char *in_path, char **out, char **cause);

/* Is there a Docker CLI and a daemon answering it?  0 with the server's
 * version in *VERSION (may be NULL), or -1 with *CAUSE "no Docker daemon:
 * ..." */
int	 dk_engine_check(char **version, char **cause);

/* 1 when IMAGE is on the local engine, 0 when not, -1 with *CAUSE. */
int	 dk_image_exists(const char *image, char **cause);

/* 0 when this engine is a swarm manager, else -1 with *CAUSE saying what
 * to do.  *ADDR (may be NULL) gets the node's advertise address. */
int	 dk_swarm_manager(char **addr, char **cause);

/* The local ID ("sha256:...") of IMAGE into *ID, or -1 with *CAUSE.  A
 * swarm task whose image is an ID is never pulled from a registry. */
int	 dk_image_id(const char *image, char **id, char **cause);

/* A host of the swarm (dk_swarm_hosts). */
struct dk_host {
	char	*id;		/* swarm node ID */
	char	*name;		/* its hostname (Description.Hostname) */
	char	*addr;		/* Status.Addr (a manager's: ManagerStatus) */
	int	 self;		/* this engine */
};

/*
 * The swarm's hosts that may run a task: Ready and Active, and carrying
 * node label LABEL ("K=V") when not NULL, sorted by hostname (then ID).
 * *HOSTS (free with dk_hosts_free) and *N how many.  0, or -1 with
 * *CAUSE.
 */
int	 dk_swarm_hosts(const char *label, struct dk_host **hosts, int *n,
	    char **cause);
void	 dk_hosts_free(struct dk_host *hosts, int n);

/* `docker service logs` of SERVICE (stdout and stderr, every task) into
 * OUT_PATH, replacing it; waits at most 10 s.  0 or -1 with *CAUSE. */
int	 dk_service_logs(const char *service, const char *out_path,
	    char **cause);

/* "host:pid:starttime" of this process, for the devnet.owner label. */
const char *dk_owner(void);

/* One container to run attached (dk_run_argv). */
struct dk_container {
	const char	 *name;
	const char	 *image;
	char *const	 *argv;		/* the command, NULL-terminated */
	char *const	 *env;		/* "K=V", NULL-terminated, or NULL */
	char *const	 *mounts;	/* host dirs bound at the same path */
	char *const	 *labels;	/* "K=V", NULL-terminated */
	double		  cpus;		/* 0 = no limit */
	uint64_t	  memory;	/* bytes, 0 = no limit */
	const char	 *network;	/* --network: "none", "container:X";
					 * NULL: host */
	int		  detach;	/* -d: the CLI returns once it runs */
};

/*
 * The argv of `docker run` for C: attached (the CLI lives as long as the
 * container, forwards its output and exits with its status) unless
 * C->detach, removed when it exits, host network unless C->network, the
 * caller's uid:gid.  The runner starts it like a local node.
 * NULL-terminated, owned by the caller (dk_argv_free).
 */
char	**dk_run_argv(const struct dk_container *c);
/* 1 if KV ("NAME=value") is a run token (DN_PROBE_TOKEN, DN_NODE_TOKEN):
 * dk_run_argv names it with --env=NAME only, and the caller hands the
 * value to docker's own environment (spawn_start's ENV). */
int	 dk_env_secret(const char *kv);
void	 dk_argv_free(char **argv);

/* The host PID of each running container NAMES[0..N-1]'s first process
 * into PIDS (its namespaces are /proc/PID/ns/...), in one `docker
 * inspect`: 0, or -1 with *CAUSE. */
int	 dk_container_pids(const char *const *names, int n, long *pids,
	    char **cause);

/* SIG to container NAME on ENGINE (NULL: this one): SIGSTOP and SIGCONT
 * as pause and unpause (the cgroup freezer), others as `docker kill
 * --signal`. */
int	 dk_signal(const char *engine, const char *name, int sig,
	    char **cause);

/*
 * Remove every service (a stack is its services), config, container,
 * network and volume on ENGINE (NULL: this one; another host's engine:
 * containers, networks and volumes only) whose labels match all of
 * FILTERS (NULL-terminated: "devnet.run=12", or just "devnet.owner"), and
 * whose owner is gone when ONLY_DEAD.  Adds how many to *N.  Returns 0
 * or -1 with *CAUSE (a missing daemon is an error).
 */
int	 dk_remove_labelled(const char *engine, const char *const *filters,
	    int only_dead, int *n, char **cause);

/* dk_remove_labelled(ENGINE, "devnet.owner", 1, ...): what killed
 * devnets left there, looking again until their containers are gone. */
int	 dk_sweep(const char *engine, int *n, char **cause);

#endif
