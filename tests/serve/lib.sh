# lib.sh: what the tests of `--serve` share (sourced after tests/e2e/lib.sh):
# free loopback ports, waiting for a URL, the running trial's clock (of
# the server at $URL) and a headless Chromium's screenshot of its page.

# free_port: a TCP port of 127.0.0.1 nobody listens on now
free_port() {
	python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# up URL: the URL answers 200
up() {
	curl -sf -o /dev/null --max-time 2 "$1"
}

# devnet_serve PORT ARGS...: start `devnet run ARGS --serve 127.0.0.1:PORT`
# in the background ($DN_PID), and wait for its server
devnet_serve() {
	local port=$1
	shift
	"$DEVNET" run "$@" --db "$DB" --run-dir "$RUNS" --quiet \
	    --serve "127.0.0.1:$port" >"$T/run.out" 2>&1 &
	DN_PID=$!
	wait_for 30 up "http://127.0.0.1:$port/metrics"
}

# live_t: the running trial's index and clock, "1 4200"
live_t() {
	curl -sf --max-time 2 "$URL/api/live" | python3 -c "import json, sys
d = json.load(sys.stdin)
r = [t for t in d['trials'] if t['state'] == 'running']
print(r[0]['trial'] if r else 0, r[0]['t_ms'] if r else 0,
    d['trials_ended'])"
}
at_least() {	# TRIAL MS: trial TRIAL runs at MS or later
	set -- "$1" "$2" $(live_t)
	[ "$3" -gt "$1" ] || { [ "$3" -eq "$1" ] && [ "$4" -ge "$2" ]; }
}
shot() {	# N [HEIGHT]: screenshot and DOM of the page ($T/sN.png, $T/domN.html)
	timeout 40 chromium --headless --no-sandbox --disable-gpu \
	    --no-first-run --user-data-dir="$T/chr$1" \
	    --window-size="1200,${2:-2400}" \
	    --virtual-time-budget=3000 --screenshot="$T/s$1.png" --dump-dom \
	    "$URL/" >"$T/dom$1.html" 2>"$T/chr$1.err"
}
