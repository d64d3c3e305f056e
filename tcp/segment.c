// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - TCP segment parsing and header building
 *
 * Only the options the adaptation uses are read: MSS, window scale and
 * SACK-permitted, and only on SYNs (RFC 7323: a window scale elsewhere is
 * ignored).  Timestamps are not offered back, so the guest does not use
 * them; SACK is, and netshim's blocks tell the guest which of its bytes
 * past a hole are held (tcp/ooo.c).  The guest's own SACK blocks are not
 * read: netshim retransmits from the guest's cumulative ACK.
 */
#include "segment.h"

/**
 * tcp_opts_parse() - read MSS, window scale and SACK-permitted from SYN
 *		      options
 * @opt:	options
 * @len:	their length
 * @s:		segment, filled in
 *
 * Return: 0, or -1 if an option runs past the end
 */
static int tcp_opts_parse(const struct pkt *opt, struct tcp_seg *s)
{
	size_t off = 0;

	while (off < opt->len) {
		const uint8_t *o = pkt_get(opt, off, 1);
		const uint8_t *l;

		if (o[0] == 0)		/* end of options */
			break;
		if (o[0] == 1) {	/* NOP */
			off++;
			continue;
		}
		l = pkt_get(opt, off + 1, 1);
		if (!l || *l < 2 || !pkt_get(opt, off, *l))
			return -1;
		if (o[0] == 2 && *l == 4)
			s->mss = rd16(o + 2);
		else if (o[0] == 3 && *l == 3) {
			s->ws = o[2] > 14 ? 14 : o[2];
			s->has_ws = true;
		} else if (o[0] == 4 && *l == 2) {
			s->sack_ok = true;
		}
		off += *l;
	}
	return 0;
}

/**
 * tcp_seg_parse() - validate and parse a guest TCP segment
 * @l4:		TCP header and payload
 * @s:		filled in
 *
 * Return: 0 if valid, -1 if malformed
 */
int tcp_seg_parse(const struct pkt *l4, struct tcp_seg *s)
{
	const uint8_t *h = pkt_get(l4, 0, TCP_HLEN);
	struct pkt opt;
	size_t doff;

	if (!h)
		return -1;
	doff = (size_t)(h[12] >> 4) * 4;
	if (doff < TCP_HLEN || doff > l4->len)
		return -1;

	s->sport = rd16(h);
	s->dport = rd16(h + 2);
	s->seq = rd32(h + 4);
	s->ack = rd32(h + 8);
	s->flags = h[13] & 0x3f;
	s->wnd = rd16(h + 14);
	s->mss = 0;
	s->ws = 0;
	s->has_ws = false;
	s->sack_ok = false;
	s->payload.data = h + doff;
	s->payload.len = l4->len - doff;

	if (!s->sport || !s->dport)
		return -1;
	if ((s->flags & TH_SYN) && (s->flags & (TH_FIN | TH_RST)))
		return -1;
	if (s->flags & TH_SYN) {
		opt.data = h + TCP_HLEN;
		opt.len = doff - TCP_HLEN;
		if (tcp_opts_parse(&opt, s))
			return -1;
	}
	return 0;
}

/**
 * tcp_hdr_build() - write a TCP header, checksum left zero
 * @out:	room for TCP_HLEN + TCP_OPTLEN_MAX bytes
 * @sport:	source port
 * @dport:	destination port
 * @seq:	sequence number
 * @ack:	acknowledgement number
 * @flags:	TH_* flags
 * @wnd:	window field
 * @mss:	MSS option to add (SYNs), 0 for none
 * @ws:		window scale option to add with the MSS, -1 for none
 *
 * Return: header length
 */
size_t tcp_hdr_build(uint8_t *out, uint16_t sport, uint16_t dport,
		     uint32_t seq, uint32_t ack, uint8_t flags, uint16_t wnd,
		     uint16_t mss, int ws)
{
	size_t len = TCP_HLEN;

	wr16(out, sport);
	wr16(out + 2, dport);
	wr32(out + 4, seq);
	wr32(out + 8, ack);
	out[13] = flags;
	wr16(out + 14, wnd);
	wr32(out + 16, 0);		/* checksum, urgent pointer */
	if (mss) {
		out[20] = 2;
		out[21] = 4;
		wr16(out + 22, mss);
		len += 4;
		if (ws >= 0) {
			out[24] = 1;
			out[25] = 3;
			out[26] = 3;
			out[27] = (uint8_t)ws;
			len += 4;
		}
	}
	out[12] = (uint8_t)(len / 4) << 4;
	return len;
}

/**
 * tcp_hdr_add() - append an option, behind two NOPs, to a header built by
 *		   tcp_hdr_build()
 * @out:	the header, with room for TCP_HLEN + TCP_OPTLEN_MAX bytes
 * @len:	its length
 * @opt:	the option, kind and length first
 * @olen:	its length, 2 or 10
 *
 * Return: the new header length, @len if the option would not fit
 */
static size_t tcp_hdr_add(uint8_t *out, size_t len, const uint8_t *opt,
			  size_t olen)
{
	size_t i;

	if (len + 2 + olen > TCP_HLEN + TCP_OPTLEN_MAX)
		return len;
	out[len] = 1;
	out[len + 1] = 1;
	for (i = 0; i < olen; i++)
		out[len + 2 + i] = opt[i];
	len += 2 + olen;
	out[12] = (uint8_t)(len / 4) << 4;
	return len;
}

/**
 * tcp_hdr_sack_perm() - add SACK-permitted to a SYN header
 * @out:	the header, with room for TCP_HLEN + TCP_OPTLEN_MAX bytes
 * @len:	its length
 *
 * Return: the new header length
 */
size_t tcp_hdr_sack_perm(uint8_t *out, size_t len)
{
	static const uint8_t opt[2] = { 4, 2 };

	return tcp_hdr_add(out, len, opt, sizeof(opt));
}

/**
 * tcp_hdr_sack() - add one SACK block to a header
 * @out:	the header, with room for TCP_HLEN + TCP_OPTLEN_MAX bytes
 * @len:	its length
 * @left:	first sequence number of the block
 * @right:	sequence number after its last byte
 *
 * Return: the new header length
 */
size_t tcp_hdr_sack(uint8_t *out, size_t len, uint32_t left, uint32_t right)
{
	uint8_t opt[10] = { 5, 10 };

	wr32(opt + 2, left);
	wr32(opt + 6, right);
	return tcp_hdr_add(out, len, opt, sizeof(opt));
}
