/*
 * page.c: the live page (/) and its charts (/chart.svg?metric=NAME).
 *
 * The page is one HTML file (the style sheet of `devnet report`,
 * report/style.c; nothing from elsewhere) and its script, /live.js (not
 * inline: the CSP runs only scripts of the server's own, so markup that
 * slipped into the page could not run), that
 * polls /api/live every 2 s for the clock, the plan, the nodes and the
 * events, /api/verdict when a trial has ended, and redraws each chart
 * every 4 s from /chart.svg: the chart of the A/B page (report/
 * live-chart.c -> chart-svg.c) drawn here from the snapshot, one thin
 * line per node of the trial running over each variant's median and
 * p10-p90 band of every trial so far, events marked.  The browser keeps
 * only the latest SVG of each chart, and the series behind it are
 * downsampled (trial/snapshot.h, SNAP_POINTS): a 20-node, 2.5-hour run
 * costs it no more than a short one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/serve-internal.h"
#include "trial/snapshot.h"
#include "report/report.h"
#include "verdict/compare.h"
#include "xalloc.h"
#include "markup.h"

/* The charts of the page, in order: what a person watches first. */
static const char *const charts[] = {
	"rss_bytes", "cpu_user_s", "heap_live_bytes", "allocs", "height",
	"lag_ms", "txs_applied", "ctx_vol", "achieved_tps",
	"tx_latency_p99_ms", "send_lag_p99_us", NULL
};

static const char page_script[] =
"const $=s=>document.querySelector(s);\n"
"const esc=s=>String(s).replace(/[&<>\"]/g,c=>({'&':'&amp;','<':'&lt;',"
"'>':'&gt;','\"':'&quot;'}[c]));\n"
"const fmt=(v)=>v==null?'':Math.abs(v)>=1e9?(v/1e9).toFixed(2)+'G':"
"Math.abs(v)>=1e6?(v/1e6).toFixed(2)+'M':Math.abs(v)>=1e4?(v/1e3)"
".toFixed(1)+'k':(+v.toFixed(3)).toString();\n"
"const clock=ms=>{ms=Math.max(0,ms);const s=Math.floor(ms/1000);"
"return Math.floor(s/3600)+':'+String(Math.floor(s/60)%60).padStart(2,"
"'0')+':'+String(s%60).padStart(2,'0')};\n"
"let ended=-1;\n"
"function cur(d){let c=null;for(const t of d.trials)if(t.state=="
"'running'||t.state=='starting')c=t;if(!c)for(const t of d.trials)"
"if(t.state=='ended')c=t;return c}\n"
"function curs(d){let r=d.trials.filter(t=>t.state=='running'||t.state=="
"'starting');const c=cur(d);if(!r.length&&c)r=d.trials.filter(t=>t.slot"
"==c.slot&&t.state==c.state);return r.length?r:c?[c]:[]}\n"
"const who=t=>'trial '+t.trial+', variant '+t.variant+', run '+t.run+("
"t.cpus?', on CPU '+t.cpus:'')+' ('+t.state+')';\n"
"async function live(){let d;try{d=await (await fetch('/api/live'))"
".json()}catch(e){$('#conn').textContent='devnet is not answering ("
"the run ended?)';return}\n"
"$('#conn').textContent='';$('#scn').textContent=d.scenario+', group '"
"+d.group+': '+d.trials_ended+' of '+d.trials_planned+' trial(s) "
"ended';\n"
"let p='<tr><th>trial</th><th class=l>variant</th><th>run</th><th "
"class=l>CPUs</th><th class=l>state</th></tr>';for(const t of d.trials)"
"p+='<tr><td>'+t.trial+'</td><td class=l>'+esc(t.variant)+'</td><td>'+"
"(t.run||'')+'</td><td class=l title=\"the duet: its nodes pinned "
"there\">'+esc(t.cpus||'')+'</td><td class=l><span class=\"pill '+esc(t.status||t.state)+'\">'+esc(t.status||"
"t.state)+'</span></td></tr>';$('#plan').innerHTML=p;\n"
"const cs=curs(d),c=cs[0],duo=cs.length>1;if(c){$('#clock')"
".textContent=clock(c.t_ms)+' / '+clock(c.duration_ms);$('#trial')"
".textContent=duo?'slot '+(c.slot+1)+', side by side: '+cs.map(who)"
".join('; '):who(c);\n"
"const keys=['height','lag_ms','rss_bytes','heap_live_bytes','threads',"
"'fds','mempool_txs','peers'];let h='<tr>'+(duo?'<th class=l>"
"variant</th>':'')+'<th>node</th><th class=l>"
"host</th><th class=l>state</th><th>samples</th>'+keys.map(k=>'<th>'+k+"
"'</th>').join('')+'</tr>';for(const t of cs)for(const n of t.nodes)h+="
"'<tr>'+(duo?'<td class=l>'+esc(t.variant)+'</td>':'')+'<td>'+n.node+"
"'</td><td class=l>'+esc(n.host)+'</td><td class=\"l '+esc(n.state)+'\">'+"
"esc(n.state)+'</td><td>'+n.samples+'</td>'+keys.map(k=>'<td>'+(k in n.last"
"||!n.samples?fmt(n.last[k]):'<span class=na title=\"absent from its "
"samples, not 0\">not measured</span>')+'</td>').join('')+'</tr>';"
"$('#nodes').innerHTML=h;\n"
"$('#load').textContent=cs.filter(t=>t.loadgen).map(t=>{const lg="
"t.loadgen;return (duo?t.variant+': ':'')+'load generator: '+fmt("
"lg.last.achieved_tps)+' tx/s sent, '+fmt(lg.last.tx_submitted)+' "
"submitted, '+fmt(lg.last.tx_included)+' included, send lag p99 '+fmt("
"lg.last.send_lag_p99_us)+' \\u00b5s'}).join('; ');\n"
"let e='';for(const x of cs.flatMap(t=>t.events.map(x=>Object.assign("
"{v:t.variant},x))).sort((a,b)=>b.t_ms-a.t_ms))e+='<tr><td>'+("
"x.t_ms/1000).toFixed(1)+' s</td><td>'+(duo?esc(x.v)+' ':'')+(x.node<0?"
"'':x.node)+'</td><td "
"class=l>'+esc(x.kind)+'</td><td class=l>'+esc(x.detail)+'</td></tr>';"
"$('#events').innerHTML=e||'<tr><td class=l>none yet</td></tr>'}\n"
"if(d.trials_ended!=ended){ended=d.trials_ended;verdict()}}\n"
"function decide(m){if(m.verdict!='undecided')return '-';if("
"m.trials_needed)return m.trials_needed+'/side'+(m.decide_by=="
"'equivalence'?' eq':'');return m.decide_by?'out of reach':esc("
"m.mde_note||'?')}\n"
"async function verdict(){const v=await (await fetch('/api/verdict'))"
".json();if(!v.metrics){$('#verdict').innerHTML='<p class=sub>'+esc("
"v.why||'')+'</p>';return}let h='<p class=headline>'+esc(v.headline)+"
"'</p><table><tr><th class=l>metric</th>"
"<th>A</th><th>B</th><th>delta</th><th>p</th><th class=l>verdict</th>"
"<th>to decide</th></tr>';let sec=0;for(const m of v.metrics){if(!"
"m.primary&&!sec){sec=1;h+='<tr><th class=l colspan=7>secondary "
"(exploratory; Holm among themselves)</th></tr>'}"
"h+='<tr><td class=l>'+esc(m.name)+"
"'</td><td>'+fmt(m.a.median)+'</td><td>'+fmt(m.b.median)+'</td><td>'+("
"m.delta_pct==null?'':m.delta_pct.toFixed(1)+' %')+'</td><td>'+(m.p=="
"null?'':m.p.toFixed(3))+'</td><td class=\"l '+esc(m.verdict)+'\">'+"
"esc(m.verdict)+'</td><td>'+decide(m)+'</td></tr>'}"
"$('#verdict').innerHTML=h+'</table>'}\n"
"async function draw(){for(const el of document.querySelectorAll("
"'.chart[data-m]')){try{const r=await fetch('/chart.svg?metric='+"
"el.dataset.m);if(r.ok)el.querySelector('.svg').innerHTML=await "
"r.text()}catch(e){}}}\n"
"live();draw();setInterval(live,2000);setInterval(draw,4000);\n";

void
serve_page_live(struct serve *s, struct reply *r)
{
	FILE	*out = r->body;
	size_t	 i;

	(void)s;
	r->type = "text/html; charset=utf-8";
	fprintf(out, "<!doctype html>\n<html lang=\"en\"><head><meta "
	    "charset=\"utf-8\"><title>devnet live</title>\n<style>\n%s%s%s"
	    "</style></head><body><main>\n<h1>devnet, live</h1>\n<p class="
	    "\"sub\" id=\"scn\"></p><p class=\"sub\" id=\"conn\"></p>\n"
	    "<div class=\"clock\" id=\"clock\"></div><p class=\"sub\" id="
	    "\"trial\"></p>\n<div class=\"legend\"><span><i class=\"sw\" "
	    "style=\"background:#2563eb\"></i>A: the first variant of the "
	    "plan</span><span><i class=\"sw\" style=\"background:#ea580c\">"
	    "</i>B: the second</span><span>thin lines: the nodes of the "
	    "trial running; band: p10-p90 over nodes and trials</span>"
	    "</div>\n<h2>Nodes</h2><table id=\"nodes\"></table>\n<p class="
	    "\"sub\" id=\"load\"></p>\n<div class=\"grid\"><div><h2>Plan"
	    "</h2><table id=\"plan\"></table></div><div><h2>Events</h2><div "
	    "class=\"events\"><table id=\"events\"></table></div></div>"
	    "</div>\n<h2>Verdict so far</h2><div id=\"verdict\"></div>\n"
	    "<h2>Charts</h2>\n", report_css, report_css_compare,
	    report_css_live);
	for (i = 0; charts[i] != NULL; i++) {
		int	id = dn_metric_lookup(charts[i]);

		fprintf(out, "<div class=\"chart\" data-m=\"%s\"><h3>%s <span "
		    "class=\"dir\">%s%s</span></h3><p class=\"d\">", charts[i],
		    charts[i], dn_metric_defs[id].kind == DN_KIND_C ?
		    "per second, " : "", dn_metric_defs[id].unit);
		dn_markup_str(out, dn_metric_defs[id].desc, 0);
		fputs("</p><div class=\"svg\"></div></div>\n", out);
	}
	fputs("</main>\n<script src=\"/live.js\"></script>\n</body></html>\n",
	    out);
}

void
serve_page_script(struct reply *r)
{
	r->type = "text/javascript; charset=utf-8";
	fputs(page_script, r->body);
}

/* The series of METRIC of every trial of V so far, each on its
 * variant's side, the nodes of CUR as lines: appended to *SV; SEEN[K]
 * set for each node K of CUR that has one. */
static void
chart_series(struct serve *s, const struct snap_view *v, int metric,
    int cur, struct report_live_series **sv, size_t *nsv,
    struct snap_series ***keep, size_t **nkeep, size_t *ntr, char *seen)
{
	const char	*va = v->ntrials > 0 ? v->trials[0].variant : "";
	int		 i;

	*ntr = 0;
	*keep = dn_xcalloc((size_t)v->ntrials + 1, sizeof(**keep));
	*nkeep = dn_xcalloc((size_t)v->ntrials + 1, sizeof(**nkeep));
	for (i = 0; i < v->ntrials; i++) {
		const struct snap_trial_view	*tv = &v->trials[i];
		struct snap_series		*ser;
		size_t				 n, j;

		if (tv->run_id <= 0 || snapshot_series(s->snap, tv->run_id,
		    metric, &ser, &n) != 0)
			continue;
		(*keep)[*ntr] = ser;
		(*nkeep)[(*ntr)++] = n;
		*sv = dn_xreallocarray(*sv, *nsv + n + 1, sizeof(**sv));
		for (j = 0; j < n; j++) {
			if (i == cur && ser[j].node >= 0 &&
			    ser[j].node < tv->nnodes && ser[j].n > 0)
				seen[ser[j].node] = 1;
			(*sv)[(*nsv)++] = (struct report_live_series){
				.t_ms = ser[j].t_ms, .v = ser[j].v,
				.n = ser[j].n,
				.side = strcmp(tv->variant, va) != 0,
				.line = i == cur && ser[j].node >= 0 };
		}
	}
}

/*
 * What the chart of METRIC must say it cannot show (NULL: nothing): a
 * metric no sample of the run carried is not measured (a sanitizer
 * build's heap figures, a foreign node without the counter), which an
 * empty plot would hide; a node of trial CUR that sent samples without
 * it is named.  Absent is not 0 (docs/live.md).  The caller frees.
 */
static char *
chart_note(const struct snap_view *v, int cur, int metric, size_t nsv,
    const char *seen)
{
	const struct snap_trial_view	*tv;
	char				*note = NULL, *more;
	int				 k, nmiss = 0, sent = 0;

	if (cur < 0 || v->trials[cur].nodes == NULL)
		return (NULL);
	tv = &v->trials[cur];
	for (k = 0; k <= tv->nnodes; k++)
		sent |= tv->nodes[k].samples > 0;
	if (nsv == 0)
		return (sent ? dn_xasprintf("not measured: no sample carried "
		    "%s (absent, not 0)", dn_metric_defs[metric].name) : NULL);
	if (dn_metric_defs[metric].source != DN_SOURCE_N)
		return (NULL);
	for (k = 0; k < tv->nnodes; k++) {
		if (tv->nodes[k].samples == 0 || seen[k])
			continue;
		more = dn_xasprintf("%s%s%d", note != NULL ? note : "",
		    note != NULL ? ", " : "", tv->nodes[k].node);
		free(note);
		note = more;
		nmiss++;
	}
	if (note == NULL)
		return (NULL);
	more = dn_xasprintf("not measured on node%s %s (absent, not 0)",
	    nmiss > 1 ? "s" : "", note);
	free(note);
	return (more);
}

void
serve_chart(struct serve *s, const struct serve_req *q, struct reply *r)
{
	const char		 *m = serve_req_arg(q, "metric");
	int			  id = m != NULL ? dn_metric_lookup(m) : -1;
	struct snap_view	 *v;
	struct report_live_series *sv = NULL;
	struct report_live_event  *ev = NULL;
	struct snap_series	**keep;
	size_t			 *nkeep, nsv = 0, ntr, i, nev = 0;
	int			  cur = -1, k;
	char			  unit[64], *seen, *note;

	if (id < 0) {
		serve_error(r, 404, "no metric '%s'", m ? m : "");
		return;
	}
	v = snapshot_view(s->snap);
	for (k = 0; k < v->ntrials; k++)
		if (v->trials[k].state != SNAP_PLANNED)
			cur = k;	/* the latest started */
	seen = dn_xcalloc(cur >= 0 ? (size_t)v->trials[cur].nnodes + 1 : 1,
	    1);
	chart_series(s, v, id, cur, &sv, &nsv, &keep, &nkeep, &ntr, seen);
	note = chart_note(v, cur, id, nsv, seen);
	if (cur >= 0) {
		const struct snap_trial_view *tv = &v->trials[cur];

		ev = dn_xcalloc(tv->nevents + 1, sizeof(*ev));
		for (i = 0; i < tv->nevents; i++) {
			if (strcmp(tv->events[i].kind, "start") == 0)
				continue;
			ev[nev++] = (struct report_live_event){
				tv->events[i].t_ms, strcmp(tv->variant,
				    v->trials[0].variant) != 0, 0,
				tv->events[i].detail, tv->events[i].kind,
				tv->events[i].node };
		}
	}
	r->type = "image/svg+xml";
	snprintf(unit, sizeof(unit), "%s%s", dn_metric_defs[id].unit,
	    dn_metric_defs[id].kind == DN_KIND_C ? "/s" : "");
	report_live_chart_write(r->body, &(struct report_live_chart){
	    .unit = unit,
	    .counter = dn_metric_defs[id].kind == DN_KIND_C,
	    .t_span = v->ntrials ? v->trials[0].duration_ms : 0,
	    .warmup_ms = v->ntrials ? v->trials[0].warmup_ms : 0,
	    .interval_ms = v->ntrials ? v->trials[0].interval_ms : 0,
	    .s = sv, .ns = nsv, .ev = ev, .nev = nev, .note = note });
	free(seen);
	free(note);
	for (i = 0; i < ntr; i++)
		snapshot_series_free(keep[i], nkeep[i]);
	free(keep);
	free(nkeep);
	free(sv);
	free(ev);
	snapshot_view_free(v);
}
