/*
 * provider-common.c: what the container providers (provider-docker.c,
 * provider-swarm.c) share: which image and limits a node gets, the
 * labels, the checks before any trial, waiting for and killing the
 * nodes.  Calls go one way: provider.c -> provider-docker.c /
 * provider-swarm.c -> here; nothing here calls back up.
 */
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "plan/plan.h"
#include "sys/docker.h"
#include "sys/spawn.h"
#include "provider/image.h"
#include "provider/provider.h"
#include "xalloc.h"

int
provider_wait_all(const struct provider_ops *p, struct provider_trial *t,
    int ms, int step_ms, void (*look)(struct provider_trial *))
{
	uint64_t	deadline = dn_now_ns() + (uint64_t)ms * 1000000u;
	int		k, alive;

	for (;;) {
		if (look != NULL)
			look(t);
		alive = 0;
		for (k = 0; k < t->nnodes; k++)
			alive += !p->poll(t, k);
		if (alive == 0 || dn_now_ns() >= deadline)
			return (alive);
		nanosleep(&(struct timespec){ step_ms / 1000,
		    (long)(step_ms % 1000) * 1000000 }, NULL);
	}
}

void
provider_kill_running(const struct provider_ops *p,
    struct provider_trial *t, int sig, provider_ctr_fn ctr)
{
	const char	**args, **engines;
	char		**names, s[32], *cause = NULL;
	size_t		  a;
	int		  k, j, *done;

	args = dn_xcalloc((size_t)t->nnodes + 6, sizeof(*args));
	names = dn_xcalloc((size_t)t->nnodes, sizeof(*names));
	engines = dn_xcalloc((size_t)t->nnodes, sizeof(*engines));
	done = dn_xcalloc((size_t)t->nnodes, sizeof(*done));
	snprintf(s, sizeof(s), "--signal=%d", sig);
	for (k = 0; k < t->nnodes; k++) {
		if (p->poll(t, k))
			continue;
		if ((names[k] = ctr(t, k, &engines[k])) == NULL)
			continue;
		if (t->nodes[k].stopped)
			p->signal(t, k, SIGCONT);
	}
	/* one `docker kill` per engine, with every name on it */
	for (k = 0; k < t->nnodes; k++) {
		if (names[k] == NULL || done[k])
			continue;
		a = 0;
		args[a++] = "kill";
		args[a++] = s;
		for (j = k; j < t->nnodes; j++) {
			if (names[j] == NULL || done[j] ||
			    (engines[j] == NULL) != (engines[k] == NULL) ||
			    (engines[j] != NULL &&
			    strcmp(engines[j], engines[k]) != 0))
				continue;
			args[a++] = names[j];
			done[j] = 1;
		}
		args[a] = NULL;
		/* Some may exit meanwhile: docker then complains; fine. */
		if (dk_cmd_at(engines[k], args, NULL, NULL, &cause) != 0) {
			free(cause);
			cause = NULL;
		}
	}
	for (k = 0; k < t->nnodes; k++)
		free(names[k]);
	free(names);
	free(engines);
	free(done);
	free(args);
}

const char *
provider_cgroup_mem_file(void)
{
	if (access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0)
		return ("/sys/fs/cgroup/memory.current");	/* v2 */
	return ("/sys/fs/cgroup/memory/memory.usage_in_bytes");
}

static const struct scn_settings *
override_of(const struct scenario *s, int k)
{
	size_t	i;

	for (i = 0; i < s->network.noverrides; i++) {
		if (s->network.overrides[i].node == k)
			return (&s->network.overrides[i].set);
	}
	return (NULL);
}

/* The binary node K runs (an override's, else the variant's). */
static const char *
node_binary(const struct scenario *s, const struct scn_variant *v, int k)
{
	const struct scn_settings *o = override_of(s, k);

	if (o != NULL && o->binary != NULL)
		return (o->binary);
	return (plan_binary(s, v));
}

char *
provider_node_image(const struct scenario *s, const struct scn_variant *v,
    int k)
{
	const struct scn_settings *o = override_of(s, k);
	char		*tag, *cause = NULL;

	if (o != NULL && o->image != NULL)
		return (dn_xstrdup(o->image));
	if (v->set.image != NULL)
		return (dn_xstrdup(v->set.image));
	if (s->container.image != NULL)
		return (dn_xstrdup(s->container.image));
	tag = image_default_tag(node_binary(s, v, k), &cause);
	free(cause);
	return (tag != NULL ? tag : dn_xstrdup("devnet-node:missing"));
}

int
provider_node_own_image(const struct scenario *s, const struct scn_variant *v,
    int k)
{
	const struct scn_settings *o = override_of(s, k);

	return ((o == NULL || o->image == NULL) && v->set.image == NULL &&
	    s->container.image == NULL);
}

void
provider_node_limits(const struct scenario *s, const struct scn_variant *v,
    int k, double *cpus, uint64_t *mem)
{
	const struct scn_settings *o = override_of(s, k);

	*cpus = s->container.cpus;
	*mem = s->container.memory;
	if (v->set.cpus > 0)
		*cpus = v->set.cpus;
	if (v->set.memory > 0)
		*mem = v->set.memory;
	if (o != NULL && o->cpus > 0)
		*cpus = o->cpus;
	if (o != NULL && o->memory > 0)
		*mem = o->memory;
}

const char *
provider_node_cpuset(const struct scenario *s, const struct scn_variant *v,
    int k)
{
	const struct scn_settings *o = override_of(s, k);

	if (o != NULL && o->cpuset != NULL)
		return (o->cpuset);
	if (v->set.cpuset != NULL)
		return (v->set.cpuset);
	return (s->container.cpuset);
}

int
provider_any_limits(const struct scenario *s, int *cpuset)
{
	const char	*cs;
	double		 cpus;
	uint64_t	 mem;
	size_t		 i;
	int		 k, any = 0;

	*cpuset = 0;
	for (i = 0; i < s->nvariants; i++)
		for (k = 0; k < s->network.nodes; k++) {
			provider_node_limits(s, &s->variants[i], k, &cpus,
			    &mem);
			cs = provider_node_cpuset(s, &s->variants[i], k);
			any |= cpus > 0 || mem > 0 || cs != NULL;
			*cpuset |= cs != NULL;
		}
	return (any);
}

int
provider_auto_cpu(int k)
{
	cpu_set_t	set;
	int		c, n = 0, cnt;

	if (sched_getaffinity(0, sizeof(set), &set) != 0 ||
	    (cnt = CPU_COUNT(&set)) == 0)
		return (0);
	for (c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set) && n++ == k % cnt)
			return (c);
	return (0);
}

/* Add the CPUs of LIST ("0-1,3", checked by the loader) to SET. */
static void
add_cpus(cpu_set_t *set, const char *list)
{
	const char	*p = list;
	char		*end;
	long		 a, b;

	while (*p != '\0') {
		a = b = strtol(p, &end, 10);
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			p = end;
		}
		for (; a <= b && a < CPU_SETSIZE; a++)
			CPU_SET((int)a, set);
		if (*p == ',')
			p++;
		else if (*p != '\0')
			break;
	}
}

void
provider_cpus_used(const struct scenario *s, cpu_set_t *set)
{
	const char	*cs;
	size_t		 i;
	int		 k;

	CPU_ZERO(set);
	for (i = 0; i < s->nvariants; i++)
		for (k = 0; k < s->network.nodes; k++) {
			cs = provider_node_cpuset(s, &s->variants[i], k);
			if (cs == NULL)
				continue;
			if (strcmp(cs, "auto") == 0)
				CPU_SET(provider_auto_cpu(k), set);
			else
				add_cpus(set, cs);
		}
}

char **
provider_labels(const struct provider_trial *t)
{
	char	**l = dn_xcalloc(4, sizeof(*l));

	l[0] = dn_xasprintf(DK_LABEL_RUN "=%lld", (long long)t->run_id);
	l[1] = dn_xasprintf(DK_LABEL_TRIAL "=%s.%d", t->var->name,
	    t->index);
	l[2] = dn_xasprintf(DK_LABEL_OWNER "=%s", dk_owner());
	return (l);
}

/* IMAGE of node K of V there, or built from BINARY when it is devnet's
 * own (OWN).  0, or -1 with *CAUSE. */
static int
check_image(const char *img, int own, const char *binary,
    const struct scn_variant *v, int k, int quiet, char **cause)
{
	char	*c2 = NULL;
	int	 r;

	if ((r = dk_image_exists(img, &c2)) < 0) {
		*cause = c2;
		return (-1);
	}
	if (r == 0 && !own) {
		*cause = dn_xasprintf("image '%s' (variant %s, node %d) is not "
		    "on this Docker engine: `docker pull` or `docker load` it "
		    "first, or leave `image:` out to use devnet's own (devnet "
		    "image build)", img, v->name, k);
		return (-1);
	}
	if (r == 0) {
		if (!quiet)
			fprintf(stderr, "devnet: building image %s from %s\n",
			    img, binary);
		if (image_build(binary, img, NULL, &c2) != 0) {
			*cause = dn_xasprintf("cannot build image %s: %s", img,
			    c2);
			free(c2);
			return (-1);
		}
	}
	return (0);
}

int
provider_check_images(const struct scenario *s, int quiet, char **cause)
{
	const struct scn_variant *v;
	size_t	 i;
	int	 k, rv = 0;
	char	*img;

	for (i = 0; i < s->nvariants && rv == 0; i++) {
		v = &s->variants[i];
		for (k = 0; k < s->network.nodes && rv == 0; k++) {
			img = provider_node_image(s, v, k);
			rv = check_image(img, provider_node_own_image(s, v, k),
			    node_binary(s, v, k), v, k, quiet, cause);
			free(img);
		}
		/* docker under network conditions: the holders of the
		 * nodes' namespaces run devnet's own image (devnet-probe
		 * --hold), whatever image or program the nodes run */
		if (rv == 0 && s->provider == SCN_PROV_DOCKER &&
		    scenario_has_conditions(s)) {
			img = provider_holder_image();
			rv = check_image(img, 1, spawn_default_node_binary(), v,
			    0, quiet, cause);
			free(img);
		}
	}
	return (rv);
}

/* Built around the devnet-node beside devnet, never the nodes' binary:
 * a foreign node's program (etcd) is no node binary, and one image
 * serves every variant. */
char *
provider_holder_image(void)
{
	char	*tag, *cause = NULL;

	tag = image_default_tag(spawn_default_node_binary(), &cause);
	free(cause);
	return (tag != NULL ? tag : dn_xstrdup("devnet-node:missing"));
}

int
provider_check_ports(const struct scenario *s, const char *addr,
    char **cause)
{
	struct sockaddr_in	 sa;
	size_t			 i;
	int			 base, port, fd, n;

	if (s->network.tcp_base_port <= 0)
		return (0);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
		*cause = dn_xasprintf("'%s' is not an IPv4 address", addr);
		return (-1);
	}
	for (i = 0; i < s->nvariants; i++) {
		base = plan_tcp_base(s, &s->variants[i]);
		/* two per node and the collector */
		for (n = 0; n <= 2 * s->network.nodes; n++) {
			port = base + n;
			int	one = 1;

			if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC,
			    0)) == -1)
				continue;
			/* as nng's listeners: TIME_WAIT is not taken */
			setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
			    sizeof(one));
			sa.sin_port = htons((uint16_t)port);
			if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ==
			    -1) {
				*cause = dn_xasprintf("port %s:%d (of "
				    "network.tcp_base_port %d..%d) is taken "
				    "(%s): choose another tcp_base_port",
				    addr, port, base, base + 2 *
				    s->network.nodes, strerror(errno));
				close(fd);
				return (-1);
			}
			close(fd);
		}
	}
	return (0);
}
