/*
 * sp-push.h: a PUSH end without nng: nng's SP framing written by devnet
 * over a plain non-blocking socket, so that a send is one send(2) on the
 * caller's thread and wakes no nng thread (an nng PUSH socket hands every
 * message to nng's task and poller threads: ~50 us of them per message
 * here, half the node's metrics agent's budget; issue 26).  The far end
 * is an ordinary nng PULL socket listening on the URL; it cannot tell
 * this from an nng PUSH.
 *
 * On the wire (nng 1.5, src/sp/transport/{ipc,tcp}): each side first
 * sends 8 bytes, 0 'S' 'P' 0, its protocol as a big-endian u16 (push0
 * 0x50), 0 0; then each message is, over ipc, a type byte 1 and a
 * big-endian u64 length, over tcp the length alone, then the bytes.
 *
 * Not a queue that waits: bytes the socket does not take now wait in a
 * bounded buffer and go out at the next send, flush or
 * dn_sppush_connected; a message that does not fit is refused
 * (DN_EAGAIN), as a full nng queue refuses it.  A connection that goes
 * (refused, reset, the peer closed) is made again on the caller's
 * thread, at most every 10 ms, by the same calls; a message cut in half
 * by the loss is dropped and counted, whole ones go to the next
 * connection.  Thread-safe (one lock).
 */
#ifndef DN_SP_PUSH_H
#define DN_SP_PUSH_H

#include <stddef.h>
#include <stdint.h>

struct dn_sppush;

/* nng's connection header for a push0 end (the 8 bytes above). */
extern const uint8_t dn_sp_push0_hdr[8];
/*
 * nng's frame header for a LEN-byte message, written at OUT: over ipc
 * (IPC 1) the type byte 1 and the length as a big-endian u64, 9 bytes;
 * over tcp the length alone, 8.  Returns the header's size.  Also the
 * load's own TCP connections (orchestrator/trial/loadgen-tcp.c).
 */
size_t	 dn_sp_frame_hdr(uint8_t *out, size_t len, int ipc);

/*
 * Parse URL (ipc:///path or tcp://HOST:PORT, HOST a name or an address)
 * and start the first connection (not waited for).  Bytes not yet
 * written are held up to CAP_BYTES.  Returns 0, or -1 with *CAUSE (caller
 * frees).  *PP is the caller's: dn_sppush_close.
 */
int	 dn_sppush_open(struct dn_sppush **pp, const char *url,
	    size_t cap_bytes, char **cause);
/* Close the connection and free P; accepts NULL. */
void	 dn_sppush_close(struct dn_sppush *p);
/*
 * Frame LEN bytes of BUF and write them, or hold them for later.  Waits
 * for room up to TIMEOUT_MS when > 0; never when 0.  Returns 0 (written
 * or held) or DN_EAGAIN (no room).
 */
int	 dn_sppush_send(struct dn_sppush *p, const void *buf, size_t len,
	    int timeout_ms);
/*
 * Write what is held until nothing is, at most MAX_MS: 0 when the
 * kernel has every byte, DN_EAGAIN at MAX_MS.
 */
int	 dn_sppush_flush(struct dn_sppush *p, int max_ms);
/*
 * 1 while connected (the peer not seen gone).  Also the heartbeat of a
 * caller that sends rarely: it reads what the peer sent (its SP header,
 * or its close) and reconnects when it is time to.  Over ipc, when a
 * send went through since the last call, that is proof enough and
 * nothing is read: a peer that closed is then seen at the next send.
 */
int	 dn_sppush_connected(struct dn_sppush *p);
/* Messages dropped so far because their connection went mid-write. */
uint64_t dn_sppush_lost(struct dn_sppush *p);

#endif
