#!/usr/bin/env bash
# check-layers.sh: the shape rules of orchestrator/ (docs/architecture.md,
# "Map"), checked from the source, so that the house stays walkable:
#
#   - includes run one way: a file in folder F includes orchestrator headers
#     only from F or from the folders below F in LOWER[F]; a *-internal.h
#     only from its own folder; no .c file is ever included;
#   - no .c file over 800 lines and no function over 120 lines unless the
#     comment above it says why it "stays whole", in every C folder
#     (orchestrator/, node/, probe/, metrics/);
#   - no strcpy, strcat, sprintf, vsprintf or strtok in any C folder
#     (STYLE.md, git's banned.h);
#   - no provider named (SCN_PROV_*) outside provider/, node-kind/ and
#     scenario/: what differs between providers is behind their ops;
#   - no node kind tested (plan_is_foreign, node_kind_foreign or _devnet
#     named) outside node-kind/, plan/ and scenario/: what differs between
#     node kinds is behind their ops (node-kind.h);
#   - no file of provider/ includes trial/trial.h or names struct trial: a
#     provider gets the trial's view (struct provider_trial, provider.h);
#   - with --exports BUILD: every function dn_orch exports is called from
#     another object (another file of dn_orch, devnet.c, a test or a tool),
#     else it should be static; and no two files of dn_orch call each other.
#
# Prints one line per breach ("layers: FILE:LINE: ...") and exits 1 if
# there is any.  usage: tools/check-layers.sh [--exports BUILD_DIR]
#
# DN_LAYERS_ROOT=DIR checks another tree (the test gives it one with known
# breaches, to see each rule fire).
set -u
cd "${DN_LAYERS_ROOT:-$(dirname "$0")/..}" || exit 2
O=orchestrator

# The tracked files where this is a git checkout, else every file.
files() {
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
	    [ -z "${DN_LAYERS_ROOT:-}" ]; then
		git ls-files "$O"
	else
		find "$O" -type f | sort
	fi
}

# What each folder may include besides itself (the layers, top to bottom:
# cmd -> run -> node-kind -> provider -> trial -> plan -> scenario -> sys;
# net (the emulated network) beside sys, below whoever runs nodes;
# cmd -> report -> verdict -> sys; cmd, run -> serve -> trial, report,
# verdict).  Everything may use metrics/.
declare -A LOWER=(
	[.]="cmd"
	[cmd]="run serve assert node-kind provider trial plan scenario report verdict net sys"
	[run]="serve assert node-kind provider trial plan scenario net sys"
	[serve]="trial plan scenario report verdict net sys"
	[assert]="trial plan scenario sys"
	[node-kind]="provider trial plan scenario net sys"
	[provider]="trial plan scenario net sys"
	[trial]="plan scenario net sys"
	[plan]="scenario sys"
	[scenario]="sys"
	[report]="verdict sys"
	[verdict]="sys"
	[net]="sys"
	[sys]=""
)

bad=0
say() { printf 'layers: %s\n' "$*"; bad=1; }

for f in $(files | grep -E '\.[ch]$'); do
	rel=${f#"$O"/}
	case $rel in */*) dir=${rel%%/*} ;; *) dir=. ;; esac
	if [ -z "${LOWER[$dir]+set}" ]; then
		say "$f: folder '$dir' is not in the layer table (tools/check-layers.sh)"
		continue
	fi
	while IFS=: read -r ln inc; do
		inc=${inc#*\"}; inc=${inc%\"*}
		case $inc in
		*.c) say "$f:$ln: includes a .c file ($inc)"; continue ;;
		*/*) ;;
		*) continue ;;	# metrics/ headers and system headers
		esac
		idir=${inc%%/*}
		[ -d "$O/$idir" ] || continue
		case $inc in
		*-internal.h)
			[ "$idir" = "$dir" ] ||
				say "$f:$ln: includes another folder's internal header $inc"
			continue ;;
		esac
		[ "$idir" = "$dir" ] && continue
		case " ${LOWER[$dir]} " in
		*" $idir "*) ;;
		*) say "$f:$ln: $dir/ must not include $inc ($idir/ is not below $dir/)" ;;
		esac
	done < <(grep -n '^#include "' "$f")
done

# The size rules hold in every C folder, not only orchestrator/.
c_files() {
	local d
	for d in orchestrator node probe metrics; do
		[ -d "$d" ] || continue
		if git rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
		    [ -z "${DN_LAYERS_ROOT:-}" ]; then
			git ls-files "$d"
		else
			find "$d" -type f | sort
		fi
	done | grep -E '\.[ch]$'
}

for f in $(c_files | grep -E '\.c$'); do
	n=$(wc -l < "$f")
	[ "$n" -le 800 ] || say "$f: $n lines (at most 800)"
	# Functions start with their name in column 0 ("return type on its own
	# line"), the body opens with "{" and closes with "}" in column 0.
	awk -v F="$f" '
		/^\/\*/ { cstart = NR }
		/stays whole/ { whole = NR }
		/^[a-z_][a-z0-9_]*\(/ && !body { name = $0; sub(/\(.*/, "", name); at = NR }
		/^\{/ && at { body = NR }
		/^\}/ && body {
			len = NR - body - 1
			if (len > 120 && !(whole && whole < at && whole >= cstart))
				printf "layers: %s:%d: %s is %d lines (at most 120, or say why it stays whole)\n", F, at, name, len
			body = 0; at = 0
		}
	' "$f" | grep . && bad=1
done

# The functions STYLE.md bans (git's banned.h): unbounded copies and
# formats, and strtok's hidden state.  Over every C folder, not only
# orchestrator/.
c_files | while read -r f; do
	grep -nE '(^|[^a-z_.>])(strcpy|strcat|sprintf|strtok|vsprintf)[[:space:]]*\(' "$f" |
		awk -v F="$f" -F: '{ match($0, /(strcpy|strcat|vsprintf|sprintf|strtok)/)
			printf "layers: %s:%s: %s is banned (STYLE.md): use snprintf, dn_xasprintf or memcpy with a length\n", F, $1, substr($0, RSTART, RLENGTH) }'
done | grep . && bad=1

# What differs between providers lives behind their ops (provider/), and
# what the scenario says of them in scenario/; node-kind/ may ask which
# provider runs a foreign node.  A provider named anywhere else is a
# switch on the kind waiting to miss a new provider (issue 34).
files | grep -E '^orchestrator/.*\.[ch]$' |
	grep -vE '^orchestrator/(provider|node-kind|scenario)/' |
	while read -r f; do
		grep -n 'SCN_PROV_' "$f" | awk -v F="$f" -F: '{
			printf "layers: %s:%s: a provider named outside provider/ (SCN_PROV_*): ask its ops (provider.h)\n", F, $1 }'
	done | grep . && bad=1

# Likewise the node kinds (node-kind.h).  plan/ defines a variant's kind
# (plan_is_foreign) and makes both kinds' argv, which provider/ below
# node-kind/ needs; scenario/ loads both (issue 34).
files | grep -E '^orchestrator/.*\.[ch]$' |
	grep -vE '^orchestrator/(node-kind|plan|scenario)/' |
	while read -r f; do
		grep -nE 'plan_is_foreign[[:space:]]*\(|node_kind_(foreign|devnet)\b|->foreign\b' "$f" |
			awk -v F="$f" -F: '{
			printf "layers: %s:%s: a node kind tested outside node-kind/: ask its ops (node-kind.h)\n", F, $1 }'
	done | grep . && bad=1

# A provider gets the trial's view (struct provider_trial, provider.h):
# the facts it may read, the node records, and trial/'s door for the rest
# (trial-node.h); never the whole trial, whose other fields are the
# runner's and the collector's, some under a lock (issue 34).
files | grep -E '^orchestrator/provider/.*\.[ch]$' |
	while read -r f; do
		grep -nE '#include "trial/trial\.h"|struct[[:space:]]+trial([^_[:alnum:]]|$)' "$f" |
			awk -v F="$f" -F: '{
			printf "layers: %s:%s: a provider given the whole trial: use its view (struct provider_trial, provider.h) and trial-node.h\n", F, $1 }'
	done | grep . && bad=1

if [ "${1:-}" = "--exports" ]; then
	B=${2:?usage: --exports BUILD_DIR}
	lib=$(find "$B" -name libdn_orch.a | head -1)
	[ -n "$lib" ] || { echo "layers: no libdn_orch.a under $B" >&2; exit 2; }
	tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
	# Every undefined reference of every object but the defining one.
	# (one nm for all of them: one per object took minutes on a loaded
	# machine, most of it in process start-up)
	find "$B" -name '*.o' -print0 | xargs -0 -r nm -A -u 2>/dev/null |
		awk '{ o = $1; sub(/:$/, "", o); print $NF "\t" o }' |
		sort -u > "$tmp/uses"
	nm --defined-only -A "$lib" 2>/dev/null |
		awk '$2 == "T" { split($1, a, ":"); print $3 "\t" a[2] }' \
		> "$tmp/defs"
	# One pass: a symbol is used when some object other than (a file of
	# the same name as) its defining one refers to it.
	awk -F'\t' '
		NR == FNR { n = split($2, p, "/"); use[$1, p[n]] = 1
			    any[$1] = any[$1] SUBSEP p[n]; next }
		{
			used = 0; m = split(any[$1], objs, SUBSEP)
			for (i = 2; i <= m; i++)
				if (objs[i] != $2) { used = 1; break }
			if (!used)
				printf "layers: %s: %s is exported but used only in its own file (make it static, or delete it)\n", substr($2, 1, length($2) - 2), $1
		}' "$tmp/uses" "$tmp/defs" > "$tmp/unused"
	[ -s "$tmp/unused" ] && { cat "$tmp/unused"; bad=1; }
	# Circles between files: A calls into B and B calls into A.
	nm -A "$lib" 2>/dev/null | awk '
		{ split($1, a, ":"); o = a[2] }
		$2 == "T" || $2 == "D" || $2 == "B" || $2 == "R" { def[$3] = o }
		$2 == "U" { use[o, $3] = 1; uses[n++] = o SUBSEP $3 }
		END {
			for (i = 0; i < n; i++) {
				split(uses[i], u, SUBSEP)
				if (!(u[2] in def) || def[u[2]] == u[1]) continue
				edge[u[1], def[u[2]]] = u[2]
			}
			for (k in edge) {
				split(k, e, SUBSEP)
				if (e[1] < e[2] && (e[2], e[1]) in edge)
					printf "layers: %s and %s call each other (%s, %s)\n", e[1], e[2], edge[k], edge[e[2], e[1]]
			}
		}' > "$tmp/circles"
	[ -s "$tmp/circles" ] && { cat "$tmp/circles"; bad=1; }
fi
exit $bad
