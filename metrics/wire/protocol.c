/* protocol.c: encoders and checking decoders for protocol.h.  No I/O. */
#include <math.h>
#include <string.h>

#include "metric-table.h"
#include "protocol.h"

void
dn_put_f64(uint8_t *p, double v)
{
	uint64_t	u;

	memcpy(&u, &v, sizeof(u));
	dn_put_u64(p, u);
}

double
dn_get_f64(const uint8_t *p)
{
	uint64_t	u = dn_get_u64(p);
	double		v;

	memcpy(&v, &u, sizeof(v));
	return (v);
}

void
dn_hdr_put(uint8_t *buf, const struct dn_hdr *h)
{
	dn_put_u32(buf + 0, DN_MAGIC);
	dn_put_u16(buf + 4, DN_PROTOCOL_VERSION);
	dn_put_u16(buf + 6, h->kind);
	dn_put_u64(buf + 8, h->token);
	dn_put_u32(buf + 16, h->node);
	dn_put_u32(buf + 20, h->len);
	dn_put_u64(buf + 24, h->seq);
	dn_put_u64(buf + 32, h->t_ns);
}

int
dn_hdr_check(const void *vbuf, size_t len, uint64_t token, uint32_t nnodes,
    int allow_none, struct dn_hdr *h)
{
	const uint8_t	*buf = vbuf;

	if (len < DN_HDR_SIZE)
		return (-DN_REJ_SHORT);
	if (dn_get_u32(buf) != DN_MAGIC)
		return (-DN_REJ_MAGIC);
	if (dn_get_u16(buf + 4) != DN_PROTOCOL_VERSION)
		return (-DN_REJ_VERSION);
	h->kind = dn_get_u16(buf + 6);
	if (h->kind == 0 || h->kind > DN_MSG_KIND_MAX)
		return (-DN_REJ_KIND);
	h->token = dn_get_u64(buf + 8);
	if (token != 0 && h->token != token)
		return (-DN_REJ_TOKEN);
	h->node = dn_get_u32(buf + 16);
	if (nnodes != 0 && h->node >= nnodes &&
	    !(allow_none && h->node == DN_NODE_NONE))
		return (-DN_REJ_NODE);
	h->len = dn_get_u32(buf + 20);
	if (len > DN_MSG_MAX || (size_t)h->len != len - DN_HDR_SIZE)
		return (-DN_REJ_LENGTH);
	h->seq = dn_get_u64(buf + 24);
	h->t_ns = dn_get_u64(buf + 32);
	return (0);
}

const char *
dn_reject_name(int reason)
{
	static const char *names[DN_REJ_COUNT] = {
		[0] = "ok",
		[DN_REJ_SHORT] = "short message",
		[DN_REJ_MAGIC] = "bad magic",
		[DN_REJ_VERSION] = "protocol version mismatch",
		[DN_REJ_TOKEN] = "bad run token",
		[DN_REJ_NODE] = "node index out of range",
		[DN_REJ_LENGTH] = "length mismatch",
		[DN_REJ_KIND] = "unknown message kind",
		[DN_REJ_PAYLOAD] = "malformed payload",
		[DN_REJ_TX_ID] = "transaction id never submitted",
		[DN_REJ_NAME] = "NAMED metric name the scenario does not "
		    "declare",
		[DN_REJ_CLOCK] = "time far ahead of the node's clock",
		[DN_REJ_CONN] = "connection beyond the trial's cap",
		[DN_REJ_UNAUTH] = "connection that did not show the run "
		    "token first",
		[DN_REJ_PIPE] = "node index held by another connection",
	};

	if (reason < 0)
		reason = -reason;
	if (reason >= DN_REJ_COUNT)
		return ("unknown reason");
	return (names[reason]);
}

size_t
dn_sample_encode(uint8_t *buf, size_t cap, const struct dn_hdr *h,
    const struct dn_sample *s)
{
	struct dn_hdr	hh = *h;
	size_t		need, i, off;
	uint16_t	flags = s->flags & ~DN_SAMPLE_ABSENT;
	uint64_t	absent = s->absent;

	if (s->count == 0 || s->count > DN_SAMPLE_MAX)
		return (0);
	if (s->count < 64)
		absent &= (1ull << s->count) - 1;
	if (absent != 0)
		flags |= DN_SAMPLE_ABSENT;
	off = DN_HDR_SIZE + 8 + (absent != 0 ? 8 : 0);
	need = off + 8 * (size_t)s->count;
	if (cap < need)
		return (0);
	hh.kind = DN_MSG_SAMPLE;
	hh.len = (uint32_t)(need - DN_HDR_SIZE);
	dn_hdr_put(buf, &hh);
	dn_put_u16(buf + DN_HDR_SIZE, s->count);
	dn_put_u16(buf + DN_HDR_SIZE + 2, flags);
	dn_put_u32(buf + DN_HDR_SIZE + 4, s->dropped);
	if (absent != 0)
		dn_put_u64(buf + DN_HDR_SIZE + 8, absent);
	for (i = 0; i < s->count; i++)
		dn_put_f64(buf + off + 8 * i,
		    ((absent >> i) & 1) ? 0.0 : s->values[i]);
	return (need);
}

int
dn_sample_decode(const uint8_t *p, size_t len, struct dn_sample *s)
{
	size_t	i, off = 8;

	if (len < 8)
		return (-DN_REJ_PAYLOAD);
	s->count = dn_get_u16(p);
	s->flags = dn_get_u16(p + 2);
	s->dropped = dn_get_u32(p + 4);
	s->absent = 0;
	if (s->flags & DN_SAMPLE_ABSENT) {
		if (len < 16)
			return (-DN_REJ_PAYLOAD);
		s->absent = dn_get_u64(p + 8);
		off = 16;
	}
	if (s->count == 0 || s->count > DN_SAMPLE_MAX ||
	    len != off + 8 * (size_t)s->count)
		return (-DN_REJ_PAYLOAD);
	if (s->count < 64 && (s->absent >> s->count) != 0)
		return (-DN_REJ_PAYLOAD);
	for (i = 0; i < s->count; i++) {
		s->values[i] = dn_get_f64(p + off + 8 * i);
		if (!isfinite(s->values[i]))
			return (-DN_REJ_PAYLOAD);
		if (((s->absent >> i) & 1) && s->values[i] != 0.0)
			return (-DN_REJ_PAYLOAD);
	}
	return (0);
}

int
dn_named_name_ok(const char *name)
{
	size_t	i, len = strnlen(name, DN_NAME_MAX + 1);

	if (len == 0 || len > DN_NAME_MAX)
		return (0);
	if ((name[0] >= '0' && name[0] <= '9') || name[0] == '.')
		return (0);
	for (i = 0; i < len; i++) {
		char	c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_' || c == ':' ||
		    c == '.'))
			return (0);
	}
	return (dn_metric_lookup(name) < 0);
}

size_t
dn_named_encode(uint8_t *buf, size_t cap, const struct dn_hdr *h,
    uint16_t flags, const struct dn_named *v, size_t n)
{
	struct dn_hdr	hh = *h;
	size_t		need = DN_HDR_SIZE + 8, i, j, off, len;

	if (n == 0 || n > DN_NAMED_MAX || (flags & ~DN_SAMPLE_FINAL) != 0)
		return (0);
	for (i = 0; i < n; i++) {
		if (!dn_named_name_ok(v[i].name) || v[i].kind > 1 ||
		    !isfinite(v[i].value))
			return (0);
		for (j = 0; j < i; j++) {
			if (strcmp(v[j].name, v[i].name) == 0)
				return (0);
		}
		need += 2 + strlen(v[i].name) + 8;
	}
	if (cap < need)
		return (0);
	hh.kind = DN_MSG_NAMED;
	hh.len = (uint32_t)(need - DN_HDR_SIZE);
	dn_hdr_put(buf, &hh);
	dn_put_u16(buf + DN_HDR_SIZE, (uint16_t)n);
	dn_put_u16(buf + DN_HDR_SIZE + 2, flags);
	dn_put_u32(buf + DN_HDR_SIZE + 4, 0);
	off = DN_HDR_SIZE + 8;
	for (i = 0; i < n; i++) {
		len = strlen(v[i].name);
		buf[off] = (uint8_t)len;
		buf[off + 1] = v[i].kind;
		memcpy(buf + off + 2, v[i].name, len);
		dn_put_f64(buf + off + 2 + len, v[i].value);
		off += 2 + len + 8;
	}
	return (need);
}

int
dn_named_decode(const uint8_t *p, size_t len, uint16_t *flags,
    struct dn_named *v, size_t cap, size_t *n)
{
	size_t		count, off = 8, i, j, l;

	if (len < 8)
		return (-DN_REJ_PAYLOAD);
	count = dn_get_u16(p);
	*flags = dn_get_u16(p + 2);
	if (count == 0 || count > DN_NAMED_MAX || count > cap ||
	    (*flags & ~DN_SAMPLE_FINAL) != 0 || dn_get_u32(p + 4) != 0)
		return (-DN_REJ_PAYLOAD);
	for (i = 0; i < count; i++) {
		if (len - off < 2)
			return (-DN_REJ_PAYLOAD);
		l = p[off];
		if (l == 0 || l > DN_NAME_MAX || p[off + 1] > 1 ||
		    len - off - 2 < l + 8)
			return (-DN_REJ_PAYLOAD);
		memcpy(v[i].name, p + off + 2, l);
		v[i].name[l] = '\0';
		v[i].kind = p[off + 1];
		v[i].value = dn_get_f64(p + off + 2 + l);
		/* strlen != l: a NUL inside the name */
		if (!dn_named_name_ok(v[i].name) || strlen(v[i].name) != l ||
		    !isfinite(v[i].value))
			return (-DN_REJ_PAYLOAD);
		for (j = 0; j < i; j++) {
			if (strcmp(v[j].name, v[i].name) == 0)
				return (-DN_REJ_PAYLOAD);
		}
		off += 2 + l + 8;
	}
	if (off != len)
		return (-DN_REJ_PAYLOAD);
	*n = count;
	return (0);
}

void
dn_tx_put(uint8_t *p, const struct dn_tx *tx)
{
	dn_put_u64(p, tx->id);
	dn_put_u64(p + 8, tx->intended_ns);
	dn_put_u32(p + 16, tx->from);
	dn_put_u32(p + 20, tx->to);
	dn_put_u64(p + 24, tx->amount);
	dn_put_u64(p + 32, tx->nonce);
}

void
dn_tx_get(const uint8_t *p, struct dn_tx *tx)
{
	tx->id = dn_get_u64(p);
	tx->intended_ns = dn_get_u64(p + 8);
	tx->from = dn_get_u32(p + 16);
	tx->to = dn_get_u32(p + 20);
	tx->amount = dn_get_u64(p + 24);
	tx->nonce = dn_get_u64(p + 32);
}

int
dn_txs_check(const uint8_t *p, size_t len, uint32_t *count, uint32_t *hops,
    const uint8_t **txs)
{
	if (len < 8)
		return (-DN_REJ_PAYLOAD);
	*count = dn_get_u32(p);
	*hops = dn_get_u32(p + 4);
	if (*count == 0 || *count > DN_TXS_MAX ||
	    len != 8 + (size_t)*count * DN_TX_SIZE)
		return (-DN_REJ_PAYLOAD);
	*txs = p + 8;
	return (0);
}

int
dn_included_check(const uint8_t *p, size_t len, uint64_t *height,
    uint64_t *proposed_ns, uint32_t *count, const uint8_t **entries)
{
	if (len < 24)
		return (-DN_REJ_PAYLOAD);
	*height = dn_get_u64(p);
	*proposed_ns = dn_get_u64(p + 8);
	*count = dn_get_u32(p + 16);
	if (*count > DN_TXS_MAX || len != 24 + (size_t)*count * DN_INCL_ENTRY)
		return (-DN_REJ_PAYLOAD);
	*entries = p + 24;
	return (0);
}

void
dn_status_put(uint8_t *p, const struct dn_status *st)
{
	dn_put_u64(p, st->height);
	dn_put_u64(p + 8, st->txs_applied);
	dn_put_u64(p + 16, st->txs_rejected);
	dn_put_u32(p + 24, st->mempool);
	dn_put_u32(p + 28, st->peers);
	dn_put_u32(p + 32, st->pid);
	dn_put_u32(p + 36, st->flags);
	memcpy(p + 40, st->state_hash, 32);
}

int
dn_status_get(const uint8_t *p, size_t len, struct dn_status *st)
{
	if (len != DN_STATUS_SIZE)
		return (-DN_REJ_PAYLOAD);
	st->height = dn_get_u64(p);
	st->txs_applied = dn_get_u64(p + 8);
	st->txs_rejected = dn_get_u64(p + 16);
	st->mempool = dn_get_u32(p + 24);
	st->peers = dn_get_u32(p + 28);
	st->pid = dn_get_u32(p + 32);
	st->flags = dn_get_u32(p + 36);
	memcpy(st->state_hash, p + 40, 32);
	return (0);
}
