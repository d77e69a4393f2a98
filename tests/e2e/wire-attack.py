#!/usr/bin/env python3
# wire-attack.py: what another local user can do to a trial's collector
# over TCP (issue 38); wire-tcp.sh runs it as nobody.
#
#   wire-attack.py oversize PORT MIB
#	one frame that claims 1 GiB, then MIB MiB of it; prints the bytes
#	the collector took before it closed the connection
#   wire-attack.py conns PORT N HOLD
#	N connections, each with nng's SP handshake (push0), held HOLD s;
#	prints how many were still open at the end
#   wire-attack.py sample PORT TOKEN NODE SEQ
#	one SAMPLE of NODE with TOKEN (hex) and sequence SEQ, every value 0
#	(rss 0), the first message of a connection of its own; prints 1
#	once it went out
import socket
import struct
import sys
import time

SP_PUSH0 = b"\x00SP\x00\x00\x50\x00\x00"


def connect(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(SP_PUSH0)
    got = b""
    while len(got) < 8:
        b = s.recv(8 - len(got))
        if not b:
            raise OSError("closed during the SP handshake")
        got += b
    return s


def oversize(port, mib):
    s = connect(port)
    sent = 0
    chunk = bytes(1 << 20)
    try:
        s.sendall(struct.pack(">Q", 1 << 30))
        for _ in range(mib):
            s.sendall(chunk)
            sent += len(chunk)
    except OSError:
        pass
    print(sent)


def conns(port, n, hold):
    v = []
    for _ in range(n):
        try:
            v.append(connect(port))
        except OSError:
            pass
    time.sleep(hold)
    alive = 0
    for s in v:
        s.setblocking(False)
        try:
            if s.recv(1) != b"":
                alive += 1
        except BlockingIOError:
            alive += 1
        except OSError:
            pass
    print(alive)


def sample(port, token, node, seq):
    count = 16
    payload = struct.pack("<HHI", count, 0, 0) + bytes(8 * count)
    hdr = struct.pack("<IHHQIIQQ", 0x54454E44, 5, 1, token, node,
                      len(payload), seq,
                      time.clock_gettime_ns(time.CLOCK_MONOTONIC))
    s = connect(port)
    msg = hdr + payload
    s.sendall(struct.pack(">Q", len(msg)) + msg)
    time.sleep(0.3)
    s.close()
    print(1)


def main():
    what, port = sys.argv[1], int(sys.argv[2])
    if what == "oversize":
        oversize(port, int(sys.argv[3]))
    elif what == "conns":
        conns(port, int(sys.argv[3]), float(sys.argv[4]))
    elif what == "sample":
        sample(port, int(sys.argv[3], 16), int(sys.argv[4]),
               int(sys.argv[5]))
    else:
        sys.exit("wire-attack: unknown '%s'" % what)


main()
