/*
 * provider-swarm.c: the `swarm` provider (see provider.h): one Docker
 * Swarm stack per trial, from a generated Compose file (swarm_compose,
 * also printed by `devnet validate --provider swarm`).
 *
 * What works: the Compose file (one service per node, one replica, no
 * restarts, host network, the trial dir bound at the same path, limits,
 * placement, devnet labels on services and containers) and the checks
 * before any trial (daemon, swarm manager, tcp endpoints, ports, images).
 * What does not yet: deploying and watching the stack; `prepare` says so
 * and no trial starts.  docs/providers.md, "swarm".
 *
 * Not here: the docker CLI (docker.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "docker.h"
#include "provider.h"
#include "xalloc.h"

/* S as a YAML double-quoted scalar. */
static void
put_q(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(out, "\\x%02x", (unsigned char)*s);
		else
			fputc(*s, out);
	}
	fputc('"', out);
}

int
swarm_compose(FILE *out, const struct scenario *s,
    const struct scn_variant *v, const struct plan_endpoints *ep,
    const char *const *labels, char **cause)
{
	char		**argv = NULL, **env = NULL;
	const char	*base;
	double		  cpus;
	uint64_t	  mem;
	size_t		  j;
	int		  k;

	fprintf(out, "# devnet: the stack of one trial of '%s', variant %s "
	    "(generated)\nversion: \"3.8\"\nservices:\n", s->name, v->name);
	for (k = 0; k < s->network.nodes; k++) {
		char	*img;

		if (plan_node_argv(s, v, k, ep, &argv, &env, cause) != 0)
			return (-1);
		img = provider_node_image(s, v, k);
		fprintf(out, "  n%d:\n    image: ", k);
		put_q(out, img);
		free(img);
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
		fputs("      - \"DN_CGROUP_MEM_FILE=/sys/fs/cgroup/memory/"
		    "memory.usage_in_bytes\"\n", out);
		fprintf(out, "    user: \"%d:%d\"\n", (int)getuid(),
		    (int)getgid());
		fputs("    networks: [hostnet]\n    volumes:\n"
		    "      - type: bind\n        source: ", out);
		put_q(out, ep->run_dir);
		fputs("\n        target: ", out);
		put_q(out, ep->run_dir);
		fputs("\n    labels:\n", out);
		for (j = 0; labels[j] != NULL; j++) {
			const char *eq = strchr(labels[j], '=');

			fprintf(out, "      %.*s: ", (int)(eq - labels[j]),
			    labels[j]);
			put_q(out, eq + 1);
			fputc('\n', out);
		}
		fputs("    deploy:\n      replicas: 1\n"
		    "      restart_policy: {condition: none}\n"
		    "      labels:\n", out);
		for (j = 0; labels[j] != NULL; j++) {
			const char *eq = strchr(labels[j], '=');

			fprintf(out, "        %.*s: ", (int)(eq - labels[j]),
			    labels[j]);
			put_q(out, eq + 1);
			fputc('\n', out);
		}
		provider_node_limits(s, v, k, &cpus, &mem);
		if (cpus > 0 || mem > 0) {
			fputs("      resources:\n        limits:\n", out);
			if (cpus > 0)
				fprintf(out, "          cpus: \"%.3f\"\n",
				    cpus);
			if (mem > 0)
				fprintf(out, "          memory: %llu\n",
				    (unsigned long long)mem);
		}
		if (s->placement == NULL ||
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
	return (0);
}

static int
swarm_prepare(const struct scenario *s, const struct runner_opts *o,
    char **cause)
{
	char	*version = NULL, *addr = NULL;
	int	 rc = -1;

	(void)o;
	if (s->network.tcp_base_port <= 0) {
		*cause = dn_xstrdup("provider swarm needs network.listen: tcp "
		    "and network.tcp_base_port (the collector and the nodes "
		    "are reached over TCP from every host)");
		return (-1);
	}
	if (dk_engine_check(&version, cause) != 0)
		goto out;
	if (dk_swarm_manager(&addr, cause) != 0)
		goto out;
	if (provider_check_images(s, o->quiet, cause) != 0)
		goto out;
	if (provider_check_ports(s, addr != NULL && addr[0] != '\0' ? addr :
	    "127.0.0.1", cause) != 0)
		goto out;
	*cause = dn_xasprintf("provider swarm: the checks pass (Docker %s, "
	    "manager at %s), but deploying stacks is not implemented yet; "
	    "`devnet validate --provider swarm` prints the Compose file",
	    version, addr);
out:
	free(version);
	free(addr);
	return (rc);
}

static int
swarm_start(struct trial *t, int k, char **cause)
{
	(void)t;
	(void)k;
	*cause = dn_xstrdup("provider 'swarm' cannot start nodes yet");
	return (-1);
}

static int
swarm_poll(struct trial *t, int k)
{
	(void)t;
	(void)k;
	return (1);
}

static int
swarm_signal(struct trial *t, int k, int sig)
{
	(void)t;
	(void)k;
	(void)sig;
	return (-1);
}

static int
swarm_stop_all(struct trial *t, int grace_ms)
{
	(void)t;
	(void)grace_ms;
	return (0);
}

const struct provider_ops provider_swarm = {
	.name = "swarm",
	.prepare = swarm_prepare,
	.start = swarm_start,
	.poll = swarm_poll,
	.signal = swarm_signal,
	.stop_all = swarm_stop_all,
};
