# lib.sh: what the tests of `--serve` share (sourced after tests/e2e/lib.sh):
# free loopback ports and waiting for a URL.

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
