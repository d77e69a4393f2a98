/*
 * browse.c: stored runs (`devnet serve --db FILE`, and the same paths of
 * a live server): / lists the runs and, per group, the comparison of its
 * variants; /report?a=A&b=B is the page of `devnet report A B`
 * (report/compare-page.c), sides as devnet compare takes them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/serve-internal.h"
#include "report/report.h"
#include "verdict/compare.h"
#include "store.h"
#include "xalloc.h"
#include "markup.h"

/* Groups seen in the runs, with their first two variants. */
struct group {
	char	*id;
	char	*scenario;
	char	*va, *vb;
};

struct listing {
	FILE		*out;
	struct group	*g;
	size_t		 ng;
};

static const char *
col(int ncols, const char *const *names, const char *const *values,
    const char *name)
{
	int	i;

	for (i = 0; i < ncols; i++)
		if (strcmp(names[i], name) == 0)
			return (values[i] != NULL ? values[i] : "");
	return ("");
}

static void
note_group(struct listing *l, const char *id, const char *scn,
    const char *variant)
{
	struct group	*g = NULL;
	size_t		 i;

	if (*id == '\0')
		return;
	for (i = 0; i < l->ng && g == NULL; i++)
		if (strcmp(l->g[i].id, id) == 0)
			g = &l->g[i];
	if (g == NULL) {
		l->g = dn_xreallocarray(l->g, l->ng + 1, sizeof(*l->g));
		g = &l->g[l->ng++];
		memset(g, 0, sizeof(*g));
		g->id = dn_xstrdup(id);
		g->scenario = dn_xstrdup(scn);
	}
	if (g->va == NULL)
		g->va = dn_xstrdup(variant);
	else if (g->vb == NULL && strcmp(g->va, variant) != 0)
		g->vb = dn_xstrdup(variant);
}

static int
run_row(void *arg, int ncols, const char *const *names,
    const char *const *values, const int *types)
{
	struct listing	*l = arg;
	static const char *const show[] = {
		"id", "group", "scenario", "variant", "trial", "label",
		"status", "start", "duration_s", "nodes", NULL
	};
	int		 i;

	(void)types;
	note_group(l, col(ncols, names, values, "group"), col(ncols, names,
	    values, "scenario"), col(ncols, names, values, "variant"));
	fputs("<tr>", l->out);
	for (i = 0; show[i] != NULL; i++) {
		fputs(i == 2 || i == 3 || i == 5 || i == 6 ? "<td class=l>" :
		    "<td>", l->out);
		dn_markup_str(l->out, col(ncols, names, values, show[i]),
		    0);
		fputs("</td>", l->out);
	}
	fputs("</tr>\n", l->out);
	return (0);
}

static void
link_side(FILE *out, const char *g, const char *v)
{
	char	*side = dn_xasprintf("%s:%s", g, v);
	size_t	 i;

	/* a side's characters in a query: letters, digits, - _ . : stay */
	for (i = 0; side[i] != '\0'; i++) {
		unsigned char	ch = (unsigned char)side[i];

		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		    (ch >= '0' && ch <= '9') || strchr("-_.:", ch) != NULL)
			fputc(ch, out);
		else
			fprintf(out, "%%%02X", ch);
	}
	free(side);
}

void
serve_browse_index(struct serve *s, struct reply *r)
{
	struct dn_store	*st = serve_store(s, r);
	struct listing	 l = { NULL, NULL, 0 };
	char		*buf = NULL, *cause = NULL;
	size_t		 len = 0, i;

	if (st == NULL)
		return;
	l.out = open_memstream(&buf, &len);
	if (dn_store_read(st, DN_READ_RUNS, 0, run_row, &l, &cause) != 0) {
		fclose(l.out);
		free(buf);
		serve_error(r, 500, "%s", cause);
		free(cause);
		return;
	}
	fclose(l.out);
	r->type = "text/html; charset=utf-8";
	fprintf(r->body, "<!doctype html>\n<html lang=\"en\"><head><meta "
	    "charset=\"utf-8\"><title>devnet runs</title>\n<style>\n%s%s"
	    "</style></head><body><main>\n<h1>devnet runs</h1><p class="
	    "\"sub\">", report_css, report_css_compare);
	dn_markup_str(r->body, s->db, 0);
	fputs("</p>\n<h2>Groups</h2><table><tr><th>group</th><th class=l>"
	    "scenario</th><th class=l>compare</th></tr>\n", r->body);
	for (i = 0; i < l.ng; i++) {
		struct group	*g = &l.g[i];

		fputs("<tr><td>", r->body);
		dn_markup_str(r->body, g->id, 0);
		fputs("</td><td class=l>", r->body);
		dn_markup_str(r->body, g->scenario, 0);
		fputs("</td><td class=l>", r->body);
		if (g->vb != NULL) {
			fputs("<a href=\"/report?a=", r->body);
			link_side(r->body, g->id, g->va);
			fputs("&amp;b=", r->body);
			link_side(r->body, g->id, g->vb);
			fputs("\">", r->body);
			dn_markup_str(r->body, g->va, 0);
			fputs(" vs ", r->body);
			dn_markup_str(r->body, g->vb, 0);
			fputs("</a>", r->body);
		}
		fputs("</td></tr>\n", r->body);
		free(g->id);
		free(g->scenario);
		free(g->va);
		free(g->vb);
	}
	free(l.g);
	fputs("</table>\n<h2>Compare two sides</h2><form action=\"/report\">"
	    "A <input name=\"a\" placeholder=\"GROUP:VARIANT or run ids\"> "
	    "B <input name=\"b\"> <button>report</button></form>\n<h2>Runs"
	    "</h2><table><tr><th>run</th><th>group</th><th class=l>scenario"
	    "</th><th class=l>variant</th><th>trial</th><th class=l>label"
	    "</th><th class=l>status</th><th>start</th><th>s</th><th>nodes"
	    "</th></tr>\n", r->body);
	fwrite(buf, 1, len, r->body);
	fputs("</table></main></body></html>\n", r->body);
	free(buf);
}

void
serve_browse_report(struct serve *s, const struct serve_req *q,
    struct reply *r)
{
	const char		*a, *b, *why;
	struct compare_opts	 o = { .named = 1 };
	struct compare_result	*res = NULL;
	struct report_charts	*charts;
	struct dn_store		*st;
	char			*cause = NULL;
	int			 rc;

	if ((rc = serve_req_sides(q, &a, &b, &why)) != 0) {
		serve_error(r, rc, "%s", why);
		return;
	}
	if ((st = serve_store(s, r)) == NULL)
		return;
	/* one read of the samples for the verdict and the charts */
	charts = report_charts_new(st);
	o.feed = report_charts_feed(charts);
	if (compare_analyze(st, a, b, &o, &res, &cause) != 0) {
		serve_error(r, 400, "%s", cause);
		free(cause);
		report_charts_free(charts);
		return;
	}
	r->type = "text/html; charset=utf-8";
	if (report_compare_write(st, res, charts, s->db, r->body,
	    &cause) != 0) {
		serve_error(r, 500, "%s", cause);
		free(cause);
	}
	compare_result_free(res);
	report_charts_free(charts);
}
