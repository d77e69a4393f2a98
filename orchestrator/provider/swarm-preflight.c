/*
 * swarm-preflight.c: what provider swarm checks on the swarm's other
 * hosts before any trial (swarm_preflight, provider.h).  The manager's
 * host is checked by prepare itself (images, ports); another host's
 * engine may be out of devnet's reach, so the check runs there as a
 * task of the swarm:
 *
 *   - one service per (image, host) with nodes of that image there: one
 *     replica pinned like the nodes (`node.id == ID`), the image by its
 *     local ID, no restarts, host network, labelled devnet.owner (the
 *     sweep removes what a killed devnet left) and devnet.preflight.  A
 *     task Rejected with "No such image" means the image is not on that
 *     host (a swarm never pulls an image named by ID); any other end
 *     means it is.
 *   - in devnet's own image, the task is `devnet-probe --preflight-bind
 *     (the host's node ports on its address) --preflight-dial (the
 *     collector)`, with a temporary listener on the collector's port
 *     here; it exits 3 with one line per problem, read back through
 *     `docker service logs --raw`.  Where the dial works it times 20
 *     more TCP handshakes: the real network between that host and
 *     this one, stated before any trial and kept for the trials' facts
 *     (issue 39).  A foreign image gets an entrypoint
 *     that does not exist: only the image is checked.
 *   - every task binds the run directory (--run-dir) at its own path,
 *     read-only, as the nodes will bind their trial dirs in it: a host
 *     without that path (no shared filesystem there) rejects the task
 *     with "bind source path does not exist".
 *
 * Not here: placement (provider-swarm.c), the docker CLI (docker.c).
 */
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "sys/docker.h"
#include "provider/provider.h"
#include "provider/swarm-internal.h"
#include "xalloc.h"

/* How long the tasks may take to end. */
#define PREFLIGHT_MS	60000
/* Their states are read this often. */
#define PREFLIGHT_POLL_MS	250
#define LABEL_PREFLIGHT	"devnet.preflight"

/* One service: an image on a host. */
struct unit {
	char			*img;	/* as the scenario names it */
	char			*id;	/* its local ID */
	const char		*variant; /* the first variant using it */
	const struct dk_host	*h;
	int			 own;	/* devnet's image: ports too */
	char			*nodes;	/* nodes[K]: node K runs it there */
	char			*svc;
	char			*state;	/* ended: "complete", "rejected" */
	char			*err;
	char			*rtt;	/* the probe's "rtt ..." line */
};

static void
units_free(struct unit *u, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		free(u[i].img);
		free(u[i].id);
		free(u[i].nodes);
		free(u[i].svc);
		free(u[i].state);
		free(u[i].err);
		free(u[i].rtt);
	}
	free(u);
}

/* A listener on ADDR:PORT (the collector's, which prepare found free),
 * for the tasks to dial; -1 with *CAUSE. */
static int
listen_on(const char *addr, int port, char **cause)
{
	struct sockaddr_in	sa;
	int			fd, one = 1;

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1 ||
	    (fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1) {
		*cause = dn_xasprintf("preflight: no listener on %s:%d: %s",
		    addr, port, strerror(errno));
		return (-1);
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == -1 ||
	    listen(fd, 64) == -1) {
		*cause = dn_xasprintf("preflight: cannot listen on %s:%d "
		    "(the collector's port): %s", addr, port,
		    strerror(errno));
		close(fd);
		return (-1);
	}
	return (fd);
}

/* Create U's service (detached). */
static int
create(const struct scenario *s, struct unit *u, const char *advertise,
    const char *run_root, char **cause)
{
	const char	*args[40];
	char		*c_id, *own, *bind = NULL, *dial = NULL, *tmp;
	char		*mnt = NULL;
	int		 base = s->network.tcp_base_port, a = 0, k, rc;

	c_id = dn_xasprintf("node.id==%s", u->h->id);
	own = dn_xasprintf(DK_LABEL_OWNER "=%s", dk_owner());
	args[a++] = "service";
	args[a++] = "create";
	args[a++] = "--detach";
	args[a++] = "--quiet";
	args[a++] = "--name";
	args[a++] = u->svc;
	args[a++] = "--restart-condition";
	args[a++] = "none";
	args[a++] = "--constraint";
	args[a++] = c_id;
	args[a++] = "--network";
	args[a++] = "host";
	args[a++] = "--label";
	args[a++] = own;
	args[a++] = "--label";
	args[a++] = LABEL_PREFLIGHT "=1";
	args[a++] = "--container-label";
	args[a++] = own;
	args[a++] = "--container-label";
	args[a++] = LABEL_PREFLIGHT "=1";
	/* --mount is CSV: a path with a comma or a quote is not checked */
	if (run_root != NULL && strpbrk(run_root, ",\"") == NULL) {
		mnt = dn_xasprintf("type=bind,source=%s,target=%s,readonly",
		    run_root, run_root);
		args[a++] = "--mount";
		args[a++] = mnt;
	}
	if (!u->own) {
		/* the image is all there is to check: start nothing */
		args[a++] = "--entrypoint";
		args[a++] = "/devnet-preflight-runs-nothing";
		args[a++] = u->id;
	} else {
		for (k = 0; k < s->network.nodes; k++) {
			if (!u->nodes[k])
				continue;
			tmp = dn_xasprintf("%s%s%s:%d,%s:%d",
			    bind != NULL ? bind : "", bind != NULL ? "," : "",
			    u->h->addr, base + 2 * k, u->h->addr,
			    base + 2 * k + 1);
			free(bind);
			bind = tmp;
		}
		dial = dn_xasprintf("%s:%d", advertise,
		    base + 2 * s->network.nodes);
		args[a++] = u->id;
		args[a++] = "devnet-probe";
		args[a++] = "--preflight-bind";
		args[a++] = bind;
		args[a++] = "--preflight-dial";
		args[a++] = dial;
	}
	args[a] = NULL;
	rc = dk_cmd(args, NULL, NULL, cause);
	free(c_id);
	free(mnt);
	free(own);
	free(bind);
	free(dial);
	return (rc);
}

static int
ended(const char *st)
{
	return (strcmp(st, "complete") == 0 || strcmp(st, "failed") == 0 ||
	    strcmp(st, "rejected") == 0 || strcmp(st, "shutdown") == 0 ||
	    strcmp(st, "orphaned") == 0);
}

/* Read the tasks' states into U; how many have not ended. */
static size_t
look(struct unit *u, size_t nu)
{
	const char	**args;
	char		 *out = NULL, *cause = NULL, *p, *nl, *dot;
	size_t		  i, a = 0, left = 0;

	args = dn_xcalloc(nu + 8, sizeof(*args));
	args[a++] = "service";
	args[a++] = "ps";
	args[a++] = "--no-trunc";
	args[a++] = "--format";
	args[a++] = "{{.Name}}\t{{.CurrentState}}\t{{.Error}}";
	for (i = 0; i < nu; i++)
		args[a++] = u[i].svc;
	if (dk_cmd(args, NULL, &out, &cause) != 0)
		free(cause);	/* not listed yet: still coming */
	free(args);
	for (p = out; p != NULL && *p != '\0'; p = nl) {
		char	*name = p, *st, *err, *q;

		if ((nl = strchr(p, '\n')) != NULL)
			*nl++ = '\0';
		if ((st = strchr(name, '\t')) == NULL)
			continue;
		*st++ = '\0';
		if ((err = strchr(st, '\t')) != NULL)
			*err++ = '\0';
		st[strcspn(st, " ")] = '\0';
		for (q = st; *q != '\0'; q++)
			if (*q >= 'A' && *q <= 'Z')
				*q = (char)(*q - 'A' + 'a');
		if ((dot = strrchr(name, '.')) != NULL)
			*dot = '\0';
		for (i = 0; i < nu; i++) {
			if (strcmp(u[i].svc, name) != 0 ||
			    (u[i].state != NULL && ended(u[i].state)))
				continue;
			free(u[i].state);
			free(u[i].err);
			u[i].state = dn_xstrdup(st);
			u[i].err = dn_xstrdup(err != NULL ? err : "");
		}
	}
	free(out);
	for (i = 0; i < nu; i++)
		if (u[i].state == NULL || !ended(u[i].state))
			left++;
	return (left);
}

/* The probe's problem lines (docker service logs --raw of SVC), joined
 * by "; ", or NULL; its "rtt ..." line into *RTT (the caller frees)
 * when RTT is not NULL. */
static char *
probe_lines(const char *svc, char **rtt)
{
	char	 path[] = "/tmp/devnet-preflight-XXXXXX", line[512];
	char	*all = NULL, *tmp, *cause = NULL;
	FILE	*f;
	int	 fd;

	if ((fd = mkstemp(path)) == -1)
		return (NULL);
	close(fd);
	if (dk_service_logs(svc, path, &cause) != 0) {
		free(cause);
		unlink(path);
		return (NULL);
	}
	if ((f = fopen(path, "r")) != NULL) {
		while (fgets(line, sizeof(line), f) != NULL) {
			line[strcspn(line, "\r\n")] = '\0';
			if (strncmp(line, "rtt ", 4) == 0 && rtt != NULL &&
			    *rtt == NULL)
				*rtt = dn_xstrdup(line);
			if (line[0] == '\0' || strstr(line, "preflight ok") ||
			    strncmp(line, "rtt ", 4) == 0)
				continue;
			tmp = dn_xasprintf("%s%s%s", all ? all : "",
			    all ? "; " : "", line);
			free(all);
			all = tmp;
		}
		fclose(f);
	}
	unlink(path);
	return (all);
}

/* What U's end says: 0 (fine), or -1 with *CAUSE. */
static int
verdict(const struct scenario *s, const struct unit *u,
    const char *advertise, const char *run_root, char **cause)
{
	const char	*eng = scn_engine_of(s, u->h->name);
	char		*lines, *hint, *ssh;
	int		 base = s->network.tcp_base_port;

	if (strstr(u->err, "No such image") != NULL) {
		ssh = dn_xasprintf("ssh://USER@%s", u->h->name);
		*cause = dn_xasprintf("image %s (variant %s) is not on host "
		    "%s, where the swarm would run its nodes, and a swarm "
		    "never pulls an image named by ID: copy it there with "
		    "`docker save %s | docker -H %s load`, or `docker pull` "
		    "it on %s (docs/providers.md, \"Images by ID\")", u->img,
		    u->variant, u->h->name, u->img, eng != NULL ? eng : ssh,
		    u->h->name);
		free(ssh);
		return (-1);
	}
	if (strstr(u->err, "bind source path does not exist") != NULL) {
		*cause = dn_xasprintf("the run directory %s is not on host "
		    "%s: the nodes there write into their trial dirs under "
		    "it, at the same path as here; mount a shared filesystem "
		    "(NFS or the like) at %s on %s, or pin the nodes to hosts "
		    "that have it (docs/providers.md, \"More hosts\")",
		    run_root, u->h->name, run_root, u->h->name);
		return (-1);
	}
	if (!u->own || strcmp(u->state, "complete") == 0)
		return (0);
	if (strcmp(u->state, "failed") != 0 ||
	    strstr(u->err, "exit (3)") == NULL ||
	    (lines = probe_lines(u->svc, NULL)) == NULL) {
		*cause = dn_xasprintf("devnet's preflight on host %s (image "
		    "%s) ended %s: %s", u->h->name, u->img, u->state,
		    u->err[0] != '\0' ? u->err : "no error given");
		return (-1);
	}
	if (strstr(lines, "is taken") != NULL)
		hint = dn_xasprintf("the nodes there listen on %s at "
		    "network.tcp_base_port %d + 2K and + 2K + 1: stop what "
		    "holds that port on %s, or choose another tcp_base_port",
		    u->h->addr, base, u->h->name);
	else
		hint = dn_xasprintf("let %s reach this host (%s) on TCP "
		    "port %d, where the collector listens (a firewall?), or "
		    "make the swarm advertise an address %s can reach "
		    "(docs/providers.md, \"More hosts\")", u->h->name,
		    advertise, base + 2 * s->network.nodes, u->h->name);
	*cause = dn_xasprintf("host %s (%s) fails devnet's preflight: %s: "
	    "%s", u->h->name, u->h->addr, lines, hint);
	free(lines);
	free(hint);
	return (-1);
}

/* The real network between U's host and this one, from the probe's
 * timed handshakes, into RTT[H] (once per host) and stated on stderr
 * unless QUIET.  A host whose line is missing is said to be unmeasured:
 * the trials then carry no base for it. */
static void
base_rtt(const struct unit *u, size_t nu, const struct dk_host *hosts,
    const char *advertise, int quiet, struct swarm_rtt *rtt)
{
	struct swarm_rtt	*r;
	char			*line = NULL, *rest;
	size_t			 i;

	for (i = 0; i < nu; i++) {
		if (!u[i].own || strcmp(u[i].state, "complete") != 0)
			continue;
		r = &rtt[u[i].h - hosts];
		if (r->n > 0)
			continue;
		line = NULL;
		free(probe_lines(u[i].svc, &line));
		rest = line != NULL ? strchr(line + 4, ' ') : NULL;
		if (rest == NULL || sscanf(rest, " min %lf median %lf max "
		    "%lf n %d", &r->min_ms, &r->median_ms, &r->max_ms,
		    &r->n) != 4 || r->n <= 0) {
			memset(r, 0, sizeof(*r));
			if (!quiet)
				fprintf(stderr, "devnet: the network between "
				    "host %s and this one was not measured "
				    "(no timing from its preflight)\n",
				    u[i].h->name);
		} else if (!quiet)
			fprintf(stderr, "devnet: the real network between "
			    "host %s (%s) and this one (%s): RTT min %.3f ms, "
			    "median %.3f ms, max %.3f ms over %d TCP "
			    "handshakes\n", u[i].h->name, u[i].h->addr,
			    advertise, r->min_ms, r->median_ms, r->max_ms,
			    r->n);
		free(line);
	}
}

int
swarm_preflight(const struct scenario *s, const struct dk_host *hosts,
    const int *pin, int npin, const char *advertise, const char *run_root,
    int quiet, struct swarm_rtt *rtt, char **cause)
{
	struct unit	*u = NULL;
	char		*img, *c2 = NULL, *own_f;
	const char	*f[3];
	uint64_t	 t0 = dn_now_ns();
	size_t		 nu = 0, i, v;
	int		 k, fd = -1, rc = -1, any_own = 0, n = 0;

	for (v = 0; v < s->nvariants; v++) {
		for (k = 0; k < npin && k < s->network.nodes; k++) {
			const struct dk_host *h = &hosts[pin[k]];

			if (h->self)
				continue;
			img = provider_node_image(s, &s->variants[v], k);
			for (i = 0; i < nu; i++)
				if (u[i].h == h && strcmp(u[i].img, img) == 0)
					break;
			if (i == nu) {
				u = dn_xreallocarray(u, nu + 1, sizeof(*u));
				memset(&u[nu], 0, sizeof(*u));
				u[nu].img = img;
				u[nu].variant = s->variants[v].name;
				u[nu].h = h;
				u[nu].own = provider_node_own_image(s,
				    &s->variants[v], k);
				u[nu].nodes = dn_xcalloc(
				    (size_t)s->network.nodes, 1);
				u[nu].svc = dn_xasprintf("devnet-pre-%d-%zu",
				    (int)getpid(), nu);
				nu++;
			} else
				free(img);
			u[i].nodes[k] = 1;
			any_own |= u[i].own;
		}
	}
	if (nu == 0)
		return (0);
	for (i = 0; i < nu; i++)
		if (dk_image_id(u[i].img, &u[i].id, cause) != 0)
			goto out;
	if (any_own && (fd = listen_on(advertise, s->network.tcp_base_port +
	    2 * s->network.nodes, cause)) == -1)
		goto out;
	for (i = 0; i < nu; i++)
		if (create(s, &u[i], advertise, run_root, cause) != 0)
			goto out;
	while (look(u, nu) > 0) {
		if (dn_now_ns() - t0 > (uint64_t)PREFLIGHT_MS * 1000000u) {
			for (i = 0; i < nu; i++)
				if (u[i].state == NULL || !ended(u[i].state))
					break;
			*cause = dn_xasprintf("devnet's preflight task on "
			    "host %s (image %s) did not end in %d s (%s%s%s): "
			    "see `docker service ps %s`", u[i].h->name,
			    u[i].img, PREFLIGHT_MS / 1000, u[i].state ?
			    u[i].state : "not scheduled", u[i].err &&
			    u[i].err[0] ? ": " : "", u[i].err ? u[i].err : "",
			    u[i].svc);
			goto out;
		}
		nanosleep(&(struct timespec){ 0,
		    PREFLIGHT_POLL_MS * 1000000L }, NULL);
	}
	for (i = 0; i < nu; i++)
		if (verdict(s, &u[i], advertise, run_root, cause) != 0)
			goto out;
	base_rtt(u, nu, hosts, advertise, quiet, rtt);
	rc = 0;
out:
	if (fd != -1)
		close(fd);
	/* the services (their containers go with them, on every host) */
	own_f = dn_xasprintf(DK_LABEL_OWNER "=%s", dk_owner());
	f[0] = own_f;
	f[1] = LABEL_PREFLIGHT;
	f[2] = NULL;
	if (dk_remove_labelled(NULL, f, 0, &n, &c2) != 0) {
		if (rc == 0) {
			*cause = c2;
			rc = -1;
		} else
			free(c2);
	}
	free(own_f);
	if (rc == 0 && !quiet) {
		for (i = 0, n = 0; i < nu; i++) {
			for (v = 0; v < i && u[v].h != u[i].h; v++)
				;
			n += v == i;
		}
		fprintf(stderr, "devnet: preflight on %d other host(s) of "
		    "the swarm: ok in %.1f s\n", n,
		    (double)(dn_now_ns() - t0) / 1e9);
	}
	units_free(u, nu);
	return (rc);
}

void
swarm_base_facts(struct provider_trial *t, const struct dk_host *hosts,
    const int *pin, int npin, const struct swarm_rtt *rtt,
    const char *advertise)
{
	const struct dk_host	*h;
	const struct swarm_rtt	*r;
	int			 k, j;

	for (k = 0; rtt != NULL && pin != NULL && k < t->nnodes &&
	    k < npin; k++) {
		h = &hosts[pin[k]];
		if (h->self || (r = &rtt[pin[k]])->n == 0)
			continue;
		trial_ref_fact(t->ref, k, "host_rtt_min_ms", "%.3f",
		    r->min_ms);
		trial_ref_fact(t->ref, k, "host_rtt_median_ms", "%.3f",
		    r->median_ms);
		for (j = 0; j < k && pin[j] != pin[k]; j++)
			;
		if (j == k)
			trial_ref_event(t->ref, -1, "host_network",
			    "host %s (%s) to this one (%s): RTT min %.3f ms, "
			    "median %.3f ms, max %.3f ms over %d TCP "
			    "handshakes (preflight)",
			    h->name, h->addr, advertise, r->min_ms,
			    r->median_ms, r->max_ms, r->n);
	}
}

/* The engines of the first NHOSTS of HOSTS (those with nodes) that are
 * not this one but have a swarm.engines URL: answering, and swept. */
int
swarm_check_engines(const struct scenario *s, const struct dk_host *hosts,
    int nhosts, int quiet, char **cause)
{
	const char	*eng;
	int		 k, n;

	for (k = 0; k < nhosts; k++) {
		char	*version = NULL, *c2 = NULL;

		if (hosts[k].self ||
		    (eng = scn_engine_of(s, hosts[k].name)) == NULL)
			continue;
		{
			const char *const args[] = { "version", "--format",
				"{{.Server.Version}}", NULL };

			if (dk_cmd_at(eng, args, NULL, &version, &c2) != 0) {
				*cause = dn_xasprintf("the Docker engine of "
				    "host %s (swarm.engines.%s: %s) does not "
				    "answer: %s", hosts[k].name,
				    hosts[k].name, eng, c2);
				free(c2);
				return (-1);
			}
			free(version);
		}
		n = 0;
		if (dk_sweep(eng, &n, cause) != 0)
			return (-1);
		if (n > 0 && !quiet)
			fprintf(stderr, "devnet: removed %d Docker object(s) "
			    "left on %s by a devnet that was killed\n", n,
			    hosts[k].name);
	}
	return (0);
}
