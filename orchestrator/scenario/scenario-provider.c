/*
 * scenario-provider.c: where the nodes run: the top-level `provider:`
 * (local | docker | swarm), `image:`, `resources: {cpus, memory,
 * cpuset}` and
 * `placement:`, `swarm: {engines: {HOST: URL}}`, and the `image` and
 * `resources` keys a variant or a per-node override may set.
 * Reference: docs/providers.md.
 *
 * Not here: starting anything (provider.c and its parts), the other
 * settings (scenario-settings.c).
 */
#include <stdlib.h>
#include <string.h>

#include "scenario/scenario-internal.h"
#include "xalloc.h"

static const char *const resource_keys[] = { "cpus", "memory", "cpuset",
	NULL };
const char *const scenario_provider_names[] = {
	[SCN_PROV_LOCAL] = "local", [SCN_PROV_DOCKER] = "docker",
	[SCN_PROV_SWARM] = "swarm", NULL
};

/* A CPU list as the kernel writes one ("0-1,3"), or "auto". */
static int
valid_cpuset(const char *s)
{
	const char	*p = s;
	char		*end;
	long		 a, b;

	if (strcmp(s, "auto") == 0)
		return (1);
	for (;;) {
		if (*p < '0' || *p > '9')
			return (0);
		a = strtol(p, &end, 10);
		p = end;
		if (*p == '-') {
			if (p[1] < '0' || p[1] > '9')
				return (0);
			b = strtol(p + 1, &end, 10);
			if (b < a)
				return (0);
			p = end;
		}
		if (a > 4095)
			return (0);
		if (*p == '\0')
			return (1);
		if (*p++ != ',')
			return (0);
	}
}

/* An image reference: no spaces or control characters, not an option. */
static int
valid_image(const char *s)
{
	size_t	i, n = strlen(s);

	if (n == 0 || n > 255 || s[0] == '-')
		return (0);
	for (i = 0; i < n; i++) {
		if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f)
			return (0);
	}
	return (1);
}

int
scn_load_container(struct ctx *c, const struct ynode *n, const char *what,
    struct scn_settings *set)
{
	const struct ynode *v, *r;
	char		   *w = NULL;
	int		    rc = -1;

	if ((v = ymap_get(n, "image")) != NULL) {
		w = dn_xasprintf("%s%simage", what, what[0] ? "." : "");
		if (scn_get_str(c, v, w, &set->image) != 0)
			goto out;
		if (!valid_image(set->image)) {
			scn_fail(c, v, "%s '%s' is not an image reference "
			    "(e.g. devnet-node:local, registry/name:tag)", w,
			    set->image);
			goto out;
		}
	}
	if ((r = ymap_get(n, "resources")) != NULL) {
		free(w);
		w = dn_xasprintf("%s%sresources", what, what[0] ? "." : "");
		if (scn_check_map(c, r, w, resource_keys) != 0)
			goto out;
		free(w);
		w = dn_xasprintf("%s%sresources.cpus", what,
		    what[0] ? "." : "");
		if ((v = ymap_get(r, "cpus")) != NULL &&
		    scn_get_double(c, v, w, 0, 1, 1024, &set->cpus) != 0)
			goto out;
		free(w);
		w = dn_xasprintf("%s%sresources.memory", what,
		    what[0] ? "." : "");
		/* Docker refuses limits under 6 MB. */
		if ((v = ymap_get(r, "memory")) != NULL &&
		    scn_get_size(c, v, w, 6 * 1024 * 1024,
		    (uint64_t)1 << 50, &set->memory) != 0)
			goto out;
		free(w);
		w = dn_xasprintf("%s%sresources.cpuset", what,
		    what[0] ? "." : "");
		if ((v = ymap_get(r, "cpuset")) != NULL) {
			if (scn_get_str(c, v, w, &set->cpuset) != 0)
				goto out;
			if (!valid_cpuset(set->cpuset)) {
				scn_fail(c, v, "%s '%s' is not a CPU list "
				    "(e.g. 0, 0-1, 0,2) or 'auto'", w,
				    set->cpuset);
				goto out;
			}
		}
	}
	rc = 0;
out:
	free(w);
	return (rc);
}

/* swarm.engines: {HOST: URL}, the Docker engine of each named host of
 * the swarm (for events on nodes there).  A URL is what `docker --host`
 * takes: unix://, tcp:// or ssh://. */
static int
load_swarm(struct ctx *c, struct scenario *s, const struct ynode *sw)
{
	static const char *const swarm_keys[] = { "engines", NULL };
	const struct ynode	*e;
	size_t			 i;

	if (scn_check_map(c, sw, "swarm", swarm_keys) != 0)
		return (-1);
	if ((e = ymap_get(sw, "engines")) == NULL)
		return (0);
	if (e->type != Y_MAP)
		return (scn_fail(c, e, "swarm.engines must be a map of host "
		    "name to engine URL, e.g. {vm2: 'ssh://root@vm2'}"));
	s->engines = dn_xcalloc(e->nkids / 2 + 1, sizeof(*s->engines));
	for (i = 0; i + 1 < e->nkids; i += 2) {
		const struct ynode	*k = e->kids[i], *v = e->kids[i + 1];
		struct scn_engine	*g = &s->engines[s->nengines];
		char			*w = dn_xasprintf("swarm.engines.%s",
					    k->value);
		int			 rc;

		rc = scn_get_str(c, v, w, &g->url);
		g->host = dn_xstrdup(k->value);
		s->nengines++;
		if (rc == 0 && strncmp(g->url, "unix://", 7) != 0 &&
		    strncmp(g->url, "tcp://", 6) != 0 &&
		    strncmp(g->url, "ssh://", 6) != 0)
			rc = scn_fail(c, v, "%s must be a Docker engine URL "
			    "(unix://PATH, tcp://HOST:PORT or ssh://USER@HOST)"
			    ", not '%s'", w, g->url);
		free(w);
		if (rc != 0)
			return (-1);
	}
	return (0);
}

int
scn_load_provider(struct ctx *c, struct scenario *s,
    const struct ynode *root)
{
	const struct ynode *v;
	int		    k = SCN_PROV_LOCAL;

	if ((v = ymap_get(root, "provider")) != NULL &&
	    scn_get_enum(c, v, "provider", scenario_provider_names, &k) != 0)
		return (-1);
	s->provider = (enum scn_provider)k;
	if (scn_load_container(c, root, "", &s->container) != 0)
		return (-1);
	if ((v = ymap_get(root, "placement")) != NULL) {
		if (scn_get_str(c, v, "placement", &s->placement) != 0)
			return (-1);
		if (strcmp(s->placement, "spread") != 0 &&
		    (strchr(s->placement, '=') == NULL ||
		    s->placement[0] == '=' ||
		    strspn(s->placement, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "abcdefghijklmnopqrstuvwxyz0123456789_.-=") !=
		    strlen(s->placement)))
			return (scn_fail(c, v, "placement must be 'spread' or "
			    "LABEL=VALUE (a node label set with `docker node "
			    "update --label-add`), not '%s'", s->placement));
	}
	if ((v = ymap_get(root, "swarm")) != NULL && load_swarm(c, s, v) != 0)
		return (-1);
	return (0);
}

const char *
scn_engine_of(const struct scenario *s, const char *host)
{
	size_t	i;

	for (i = 0; host != NULL && i < s->nengines; i++) {
		if (strcmp(s->engines[i].host, host) == 0)
			return (s->engines[i].url);
	}
	return (NULL);
}
