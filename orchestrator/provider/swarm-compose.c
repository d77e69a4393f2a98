/*
 * swarm-compose.c: the Compose file of a swarm trial (swarm_compose,
 * also printed by `devnet validate --provider swarm`): one service per
 * node (one replica, no restarts, host network, the trial dir bound at
 * the same path, limits, placement, devnet labels on services and
 * containers); and what a swarm cannot do of a scenario whatever its
 * hosts (swarm_check, the provider's check op).  Both read the scenario
 * only: no host is asked.
 *
 * Not here: deploying it, task states, signals, stack rm
 * (provider-swarm.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan/plan.h"
#include "sys/docker.h"
#include "provider/provider.h"
#include "provider/swarm-internal.h"
#include "escape.h"
#include "xalloc.h"

/* S as a YAML double-quoted scalar, with `$` as `$$`: Compose replaces
 * $NAME and ${NAME} in every value with devnet's own environment (and
 * refuses a lone `$`), and `$$` is its literal dollar (issue 19 #3). */
static void
put_q(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if (*s == '$')
			fputs("$$", out);
		else if ((unsigned char)*s < 0x20)
			fprintf(out, "\\x%02x", (unsigned char)*s);
		else
			fputc(*s, out);
	}
	fputc('"', out);
}

/* S inside a YAML comment: a newline in a scenario's name would end the
 * comment and start a key of the file (a service of its own), so every
 * control byte, newline included, is shown as \xHH (issue 38). */
static void
put_comment(FILE *out, const char *s)
{
	char	*e = dn_escape_line(s);

	fputs(e, out);
	free(e);
}

/* With PINS (node K's swarm node ID, one per node; after prepare, or
 * NULL): node K is constrained to that host (`node.id == ID`) instead
 * of the scenario's placement. */
static int swarm_compose_pinned(FILE *out, const struct scenario *,
	    const struct scn_variant *v, const struct plan_endpoints *ep,
	    const char *const *labels, int resolve, const char *const *pins,
	    const char *const *pin_names, char **cause);

/* LABELS ("K=V") as YAML "K: V" lines indented by INDENT. */
static void
put_labels(FILE *out, const char *indent, const char *const *labels)
{
	size_t	j;

	for (j = 0; labels[j] != NULL; j++) {
		const char *eq = strchr(labels[j], '=');

		fprintf(out, "%s%.*s: ", indent, (int)(eq - labels[j]),
		    labels[j]);
		put_q(out, eq + 1);
		fputc('\n', out);
	}
}

/* The Compose file of one trial of V (endpoints EP, object labels
 * LABELS "K=V") to OUT; with RESOLVE, images by their local ID (a swarm
 * never pulls those).  -1 with *CAUSE when a node's argv or an image
 * fails. */
static int
swarm_compose(FILE *out, const struct scenario *s,
    const struct scn_variant *v, const struct plan_endpoints *ep,
    const char *const *labels, int resolve, char **cause)
{
	return (swarm_compose_pinned(out, s, v, ep, labels, resolve, NULL,
	    NULL, cause));
}

static int
swarm_compose_pinned(FILE *out, const struct scenario *s,
    const struct scn_variant *v, const struct plan_endpoints *ep,
    const char *const *labels, int resolve, const char *const *pins,
    const char *const *pin_names, char **cause)
{
	char		**argv = NULL, **env = NULL, *prev = NULL, *id = NULL;
	const char	*base;
	double		  cpus;
	uint64_t	  mem;
	size_t		  j;
	int		  k;

	fputs("# devnet: the stack of one trial of '", out);
	put_comment(out, s->name);
	fputs("', variant ", out);
	put_comment(out, v->name);
	fputs(" (generated)\nversion: \"3.8\"\nservices:\n", out);
	for (k = 0; k < s->network.nodes; k++) {
		char	*img;

		if (plan_node_argv(s, v, k, ep, &argv, &env, cause) != 0)
			goto fail;
		img = provider_node_image(s, v, k);
		if (resolve && (prev == NULL || strcmp(prev, img) != 0)) {
			free(id);
			id = NULL;
			if (dk_image_id(img, &id, cause) != 0) {
				free(img);
				goto fail;
			}
		}
		fprintf(out, "  n%d:\n", k);
		if (resolve) {
			fputs("    # ", out);
			put_comment(out, img);
			fputc('\n', out);
		}
		fputs("    image: ", out);
		put_q(out, resolve ? id : img);
		free(prev);
		prev = img;
		fputs("\n    command: [", out);
		base = strrchr(argv[0], '/');
		put_q(out, base != NULL ? base + 1 : argv[0]);
		for (j = 1; argv[j] != NULL; j++) {
			fputs(", ", out);
			put_q(out, argv[j]);
		}
		fputs("]\n    environment:\n", out);
		for (j = 0; env[j] != NULL; j++) {
			fputs("      - ", out);
			put_q(out, env[j]);
			fputc('\n', out);
		}
		fprintf(out, "      - \"DN_CGROUP_MEM_FILE=%s\"\n",
		    provider_cgroup_mem_file());
		fprintf(out, "    user: \"%d:%d\"\n", (int)getuid(),
		    (int)getgid());
		fputs("    networks: [hostnet]\n    volumes:\n"
		    "      - type: bind\n        source: ", out);
		put_q(out, ep->run_dir);
		fputs("\n        target: ", out);
		put_q(out, ep->run_dir);
		fputs("\n    labels:\n", out);
		put_labels(out, "      ", labels);
		fputs("    deploy:\n      replicas: 1\n"
		    "      restart_policy: {condition: none}\n"
		    "      labels:\n", out);
		put_labels(out, "        ", labels);
		provider_node_limits(s, v, k, &cpus, &mem);
		if (cpus > 0 || mem > 0) {
			fputs("      resources:\n        limits:\n", out);
			if (cpus > 0)
				fprintf(out, "          cpus: \"%.3f\"\n",
				    cpus);
			if (mem > 0)
				fprintf(out, "          memory: \"%llu\"\n",
				    (unsigned long long)mem);
		}
		if (pins != NULL) {
			fputs("      placement:\n        constraints:\n"
			    "          # host ", out);
			put_comment(out, pin_names[k]);
			fputs("\n          - \"node.id == ", out);
			fputs(pins[k], out);
			fputs("\"\n", out);
		} else if (s->placement == NULL ||
		    strcmp(s->placement, "spread") == 0)
			fputs("      placement:\n        preferences:\n"
			    "          - spread: node.id\n", out);
		else {
			const char *eq = strchr(s->placement, '=');

			fprintf(out, "      placement:\n        constraints:\n"
			    "          - \"node.labels.%.*s == %s\"\n",
			    (int)(eq - s->placement), s->placement, eq + 1);
		}
		plan_argv_free(argv);
		plan_argv_free(env);
		argv = env = NULL;
	}
	fputs("networks:\n  hostnet:\n    external: true\n    name: host\n",
	    out);
	free(prev);
	free(id);
	return (0);
fail:
	plan_argv_free(argv);
	plan_argv_free(env);
	free(prev);
	free(id);
	return (-1);
}

int
swarm_compose_trial(const struct provider_trial *t, const char *path,
    const char *const *ids, const char *const *names, char **cause)
{
	struct plan_endpoints	 ep;
	char			**labels;
	const char		**addrs;
	FILE			*f;
	int			 rc, k;

	memset(&ep, 0, sizeof(ep));
	ep.run_dir = t->run_dir;
	ep.net_dir = t->net_dir;
	ep.metrics_url = t->metrics_url;
	ep.token = t->token;
	ep.tcp_base_port = t->scn->network.tcp_base_port;
	addrs = dn_xcalloc((size_t)t->nnodes + 1, sizeof(*addrs));
	for (k = 0; k < t->nnodes; k++)
		addrs[k] = t->nodes[k].addr;
	ep.hosts = addrs;
	if ((f = fopen(path, "w")) == NULL) {
		*cause = dn_xasprintf("cannot write '%s': %s", path,
		    strerror(errno));
		free(addrs);
		return (-1);
	}
	labels = provider_labels(t);
	rc = swarm_compose_pinned(f, t->scn, t->var, &ep,
	    (const char *const *)labels, 1, ids, names, cause);
	dk_argv_free(labels);
	free(addrs);
	if (fclose(f) != 0 && rc == 0) {
		*cause = dn_xasprintf("cannot write '%s': %s", path,
		    strerror(errno));
		rc = -1;
	}
	return (rc);
}

int
swarm_describe(FILE *out, const struct scenario *s, char **cause)
{
	struct plan_endpoints	 ep = { .run_dir = "/RUN_DIR" };
	const char *const	 labels[] = { "devnet.run=RUN_ID",
				    "devnet.trial=VARIANT.TRIAL",
				    "devnet.owner=HOST:PID:START", NULL };
	char			*url;
	size_t			 i;
	int			 rc = 0;

	/* the collector: on the swarm's advertise address */
	if (s->network.tcp_base_port > 0)
		url = dn_xasprintf("tcp://ADVERTISE_ADDR:%d",
		    s->network.tcp_base_port + 2 * s->network.nodes);
	else
		url = dn_xstrdup("tcp://ADVERTISE_ADDR:PORT");
	ep.metrics_url = url;
	for (i = 0; i < s->nvariants && rc == 0; i++) {
		fprintf(out, "\ncompose file of variant %s (`docker stack "
		    "deploy`; RUN_DIR, ADVERTISE_ADDR and the ids are chosen "
		    "at run time):\n\n", s->variants[i].name);
		rc = swarm_compose(out, s, &s->variants[i], &ep, labels, 0,
		    cause);
	}
	free(url);
	return (rc);
}

/* What a swarm cannot do of S, whatever its hosts (run/check.c). */
int
swarm_check(const struct scenario *s, char **cause)
{
	int	span = 2 * s->network.nodes + 1;

	if (scenario_has_conditions(s)) {
		/* The conditions live in this host's kernel (namespaces,
		 * rules, the emulator); a swarm's nodes may be on other
		 * hosts, on the host network, which devnet must not
		 * touch. */
		*cause = dn_xstrdup("provider swarm does not carry out "
		    "network conditions (network.links, partition, heal, "
		    "link): its nodes share their hosts' own network, on "
		    "hosts whose kernels devnet does not reach; run them "
		    "with --provider docker (one host, each container in "
		    "its own emulated network) or local, or drop the "
		    "conditions (docs/providers.md)");
		return (-1);
	}
	if (s->order == SCN_ORDER_CONCURRENT) {
		/* a swarm's nodes are reached over TCP (ports chosen) */
		*cause = dn_xstrdup("order 'concurrent' needs ipc endpoints "
		    "(two devnets cannot share one tcp_base_port)");
		return (-1);
	}
	if (s->network.tcp_base_port <= 0 && span > 20000) {
		*cause = dn_xasprintf("provider swarm: %d nodes need %d TCP "
		    "ports; set network.tcp_base_port", s->network.nodes,
		    span);
		return (-1);
	}
	return (0);
}
