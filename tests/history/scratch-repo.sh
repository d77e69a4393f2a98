# scratch-repo.sh: a throwaway git repository whose every commit "builds"
# a node (sourced by rev.sh and usable by hand; docs/ci.md).
#
# make_repo DIR NODE PATTERN: one commit per letter of PATTERN, in order:
#   P  the build makes out/node, a wrapper that runs NODE with per-call
#      read and write options (appended last, so they win)
#   C  the same with cached options
#   X  the build fails (exit 2, with a compiler-like message)
# Prints the commit ids, one per line, oldest first, to DIR.commits.
make_repo() {
	local dir=$1 node=$2 pattern=$3 i ch mode
	rm -rf "$dir"
	mkdir -p "$dir"
	git -C "$dir" init -q
	cat >"$dir/build.sh" <<EOS
#!/bin/sh
# The "build" of this scratch repository: a wrapper around devnet-node.
set -e
mode=\$(cat mode)
if [ "\$mode" = broken ]; then
	echo "node.c:42: error: expected ';' before '}' token (mode=broken)" >&2
	exit 2
fi
mkdir -p out
printf '#!/bin/sh\\nexec %s "\$@" --read-options %s --write-options %s\\n' \\
    "$node" "\$mode" "\$mode" >out/node
chmod +x out/node
echo "built out/node (\$mode)"
EOS
	: >"$dir.commits"
	for i in $(seq 1 ${#pattern}); do
		ch=$(printf '%s' "$pattern" | cut -c "$i")
		case $ch in
		P) mode=per-call ;;
		C) mode=cached ;;
		X) mode=broken ;;
		*) echo "make_repo: bad letter $ch" >&2; return 1 ;;
		esac
		echo "$mode" >"$dir/mode"
		git -C "$dir" add -A
		git -C "$dir" -c user.name=devnet -c user.email=devnet@localhost \
		    commit -q --allow-empty -m "build $i: $mode"
		git -C "$dir" -c user.name=devnet -c user.email=devnet@localhost \
		    tag -a -m "build $i" "b$i"
		git -C "$dir" rev-parse HEAD >>"$dir.commits"
	done
}
