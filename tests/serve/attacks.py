#!/usr/bin/env python3
# attacks.py PORT: one local process against devnet's server
# (tests/serve/attacks.sh, issue 38): it opens 200 idle connections and 60
# slowloris (a request's first header lines, never the end) from
# 127.0.0.1, as Prometheus does, and keeps them open; meanwhile
# Prometheus' /metrics is asked five times.  Prints one JSON line: each
# answer's status (or "reset") and seconds, and how many of the attacker's
# sockets the server closed.
import json, resource, socket, subprocess, sys, time

port = int(sys.argv[1])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
held = []
for i in range(260):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=2)
        if i >= 200:
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        held.append(s)
    except OSError:
        pass
time.sleep(0.3)
asks = []
for k in range(5):
    # curl's own time, connect to the answer's end: a loaded machine's
    # process start does not count
    r = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w",
        "%{http_code} %{time_total}", "--max-time", "3",
        "http://127.0.0.1:%d/metrics" % port], capture_output=True,
        text=True)
    code, secs = (r.stdout.split() + ["", "3"])[:2]
    asks.append([code if code not in ("", "000") else "reset",
        round(float(secs), 3)])
    # the attacker keeps at it: a fresh idle connection after each ask
    try:
        held.append(socket.create_connection(("127.0.0.1", port),
            timeout=2))
    except OSError:
        pass
    time.sleep(0.2)
closed = 0
for s in held:
    s.setblocking(False)
    try:
        closed += s.recv(1) == b""
    except BlockingIOError:
        pass
    except OSError:
        closed += 1
    s.close()
print(json.dumps({"opened": len(held), "closed": closed, "asks": asks}))
