// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - DHCPv6 server (RFC 8415), DNS options (RFC 3646)
 *
 * Like the DHCPv4 server, there is one address to give, the pod's own, with
 * infinite lifetimes and no lease state.  Anything the guest holds that is
 * not that address is returned to it with zero lifetimes, so a stale
 * address goes away at the next renewal.
 */
#include <string.h>

#include "netshim/dnsname.h"
#include "dhcp.h"

#define DHCP6_HDR_LEN		4
#define DHCP6_OPT_HDR_LEN	4
#define IA_NA_HDR_LEN		12	/* IAID, T1, T2 */
#define IA_TA_HDR_LEN		4	/* IAID */
#define IAADDR_LEN		24	/* address, preferred, valid */
#define DUID_LL			3
#define ARPHRD_ETHER_		1
#define SERVER_DUID_LEN		(4 + ETH_ALEN_)
#define LIFETIME_INFINITE	0xffffffff

/* Message types (RFC 8415, 7.3) */
enum dhcp6_type {
	SOLICIT			= 1,
	ADVERTISE		= 2,
	REQUEST			= 3,
	CONFIRM			= 4,
	RENEW			= 5,
	REBIND			= 6,
	REPLY			= 7,
	RELEASE			= 8,
	DECLINE			= 9,
	INFORMATION_REQUEST	= 11,
};

/* Option codes (RFC 8415, 21; RFC 3646) */
enum dhcp6_opt {
	OPT_CLIENTID		= 1,
	OPT_SERVERID		= 2,
	OPT_IA_NA		= 3,
	OPT_IA_TA		= 4,
	OPT_IAADDR		= 5,
	OPT_STATUS_CODE		= 13,
	OPT_RAPID_COMMIT	= 14,
	OPT_DNS_SERVERS		= 23,
	OPT_DOMAIN_LIST		= 24,
	OPT_IA_PD		= 25,
	OPT_CLIENT_FQDN		= 39,
};

/* Client FQDN option flags (RFC 4704, 4.1) */
#define FQDN_S			0x01	/* server updates the AAAA record */
#define FQDN_O			0x02	/* server overrode the client's S */
#define FQDN_N			0x04	/* server updates no record */

/* Status codes (RFC 8415, 21.13) */
enum dhcp6_status {
	STATUS_SUCCESS		= 0,
	STATUS_NOADDRSAVAIL	= 2,
	STATUS_NOTONLINK	= 4,
	STATUS_NOPREFIXAVAIL	= 6,
};

/**
 * enum opt_walk - result of stepping through an option chain
 * @OPT_NEXT:	an option was read
 * @OPT_DONE:	the chain ended exactly at its end
 * @OPT_BAD:	an option header or value runs past the end
 */
enum opt_walk {
	OPT_NEXT,
	OPT_DONE,
	OPT_BAD,
};

/**
 * struct dhcp6_req - what a client message carries
 * @type:	message type
 * @opts:	the message's top-level option chain, checked to be well formed
 * @client_id:	Client Identifier value, if @has_client_id
 * @has_client_id: a Client Identifier is present
 * @has_server_id: a Server Identifier is present, and it is ours
 * @rapid_commit: a Rapid Commit option is present
 * @fqdn_flags:	flags of the client's Client FQDN option, if @has_fqdn
 * @has_fqdn:	the client sent a Client FQDN option (39)
 */
struct dhcp6_req {
	uint8_t type;
	struct pkt opts;
	struct pkt client_id;
	bool has_client_id;
	bool has_server_id;
	bool rapid_commit;
	uint8_t fqdn_flags;
	bool has_fqdn;
};

/**
 * struct dhcp6_buf - reply being written
 * @b:		reply bytes
 * @len:	bytes written so far
 * @cap:	room at @b
 */
struct dhcp6_buf {
	uint8_t *b;
	size_t len;
	size_t cap;
};

/**
 * opt_next() - read the next option of a chain
 * @chain:	option chain
 * @off:	offset of the next option, advanced past it
 * @code:	option code, set if one is read
 * @val:	option value, set if one is read
 *
 * Return: OPT_NEXT, OPT_DONE at the end of the chain, OPT_BAD if malformed
 */
static enum opt_walk opt_next(const struct pkt *chain, size_t *off,
			      uint16_t *code, struct pkt *val)
{
	const uint8_t *h;
	size_t len;

	if (*off == chain->len)
		return OPT_DONE;
	h = pkt_get(chain, *off, DHCP6_OPT_HDR_LEN);
	if (!h)
		return OPT_BAD;
	len = rd16(h + 2);
	val->data = pkt_get(chain, *off + DHCP6_OPT_HDR_LEN, len);
	if (!val->data)
		return OPT_BAD;
	val->len = len;
	*code = rd16(h);
	*off += DHCP6_OPT_HDR_LEN + len;
	return OPT_NEXT;
}

/**
 * chain_valid() - check that an option chain is made of whole options
 * @chain:	option chain
 *
 * Return: true if every option fits and the last one ends the chain
 */
static bool chain_valid(const struct pkt *chain)
{
	enum opt_walk w;
	struct pkt val;
	size_t off = 0;
	uint16_t code;

	while ((w = opt_next(chain, &off, &code, &val)) == OPT_NEXT)
		;
	return w == OPT_DONE;
}

/**
 * ia_opts() - options nested in an IA_NA, IA_TA or IA_PD
 * @code:	option code of the IA
 * @ia:		IA option value
 * @sub:	nested option chain, filled in
 *
 * Return: true if @ia is long enough and its nested options are well formed
 */
static bool ia_opts(uint16_t code, const struct pkt *ia, struct pkt *sub)
{
	size_t hdr = code == OPT_IA_TA ? IA_TA_HDR_LEN : IA_NA_HDR_LEN;

	return pkt_sub(ia, hdr, sub) && chain_valid(sub);
}

/**
 * server_duid() - build our server DUID: DUID-LL from our MAC address
 * @c:		configuration
 * @duid:	SERVER_DUID_LEN bytes, filled in
 */
static void server_duid(const struct conf *c, uint8_t *duid)
{
	wr16(duid, DUID_LL);
	wr16(duid + 2, ARPHRD_ETHER_);
	memcpy(duid + 4, c->our_mac, ETH_ALEN_);
}

/**
 * dhcp6_opt_note() - remember one top-level option of a client message
 * @c:		configuration
 * @req:	request being parsed
 * @code:	option code
 * @val:	option value
 *
 * Return: false if the option makes the message one to discard: malformed
 *	   nested options, or another server's identifier
 */
static bool dhcp6_opt_note(const struct conf *c, struct dhcp6_req *req,
			   uint16_t code, const struct pkt *val)
{
	uint8_t duid[SERVER_DUID_LEN];
	struct pkt sub;

	switch (code) {
	case OPT_CLIENTID:
		if (!val->len)
			return false;
		if (!req->has_client_id)
			req->client_id = *val;
		req->has_client_id = true;
		return true;
	case OPT_SERVERID:
		server_duid(c, duid);
		req->has_server_id = true;
		return val->len == SERVER_DUID_LEN &&
		       !memcmp(val->data, duid, SERVER_DUID_LEN);
	case OPT_RAPID_COMMIT:
		req->rapid_commit = true;
		return true;
	case OPT_CLIENT_FQDN:
		if (val->len >= 1) {
			req->fqdn_flags = val->data[0];
			req->has_fqdn = true;
		}
		return true;
	case OPT_IA_NA:
	case OPT_IA_TA:
	case OPT_IA_PD:
		return ia_opts(code, val, &sub);
	default:
		return true;
	}
}

/**
 * dhcp6_parse() - check a client message and note what it carries
 * @c:		configuration
 * @msg:	UDP payload from the guest
 * @req:	request, filled in
 *
 * Return: true if @msg is well formed, carries no other server's
 *	   identifier, and has the identifiers its type requires
 *	   (RFC 8415, 16)
 */
static bool dhcp6_parse(const struct conf *c, const struct pkt *msg,
			struct dhcp6_req *req)
{
	const uint8_t *h = pkt_get(msg, 0, DHCP6_HDR_LEN);
	enum opt_walk w;
	struct pkt val;
	size_t off = 0;
	uint16_t code;

	memset(req, 0, sizeof(*req));
	if (!h || !pkt_sub(msg, DHCP6_HDR_LEN, &req->opts))
		return false;
	req->type = h[0];

	while ((w = opt_next(&req->opts, &off, &code, &val)) == OPT_NEXT) {
		if (!dhcp6_opt_note(c, req, code, &val))
			return false;
	}
	if (w != OPT_DONE)
		return false;

	switch (req->type) {
	case SOLICIT:
	case CONFIRM:
	case REBIND:
		return req->has_client_id;
	case REQUEST:
	case RENEW:
	case RELEASE:
	case DECLINE:
		return req->has_client_id && req->has_server_id;
	case INFORMATION_REQUEST:
		return true;
	default:
		return false;
	}
}

/**
 * put() - append bytes to the reply
 * @o:		reply being written
 * @data:	bytes
 * @len:	number of bytes
 *
 * Return: true if they fit, false (and nothing written) otherwise
 */
static bool put(struct dhcp6_buf *o, const void *data, size_t len)
{
	if (o->cap - o->len < len)
		return false;
	if (!len)
		return true;
	memcpy(o->b + o->len, data, len);
	o->len += len;
	return true;
}

/**
 * put_opt_hdr() - append an option header
 * @o:		reply being written
 * @code:	option code
 * @len:	option length
 *
 * Return: true if it fit
 */
static bool put_opt_hdr(struct dhcp6_buf *o, uint16_t code, size_t len)
{
	uint8_t h[DHCP6_OPT_HDR_LEN];

	if (len > UINT16_MAX)
		return false;
	wr16(h, code);
	wr16(h + 2, (uint16_t)len);
	return put(o, h, sizeof(h));
}

/**
 * put_opt() - append a whole option, or nothing
 * @o:		reply being written
 * @code:	option code
 * @val:	option value
 * @len:	option length
 *
 * Return: true if it fit, false (and nothing written) otherwise
 */
static bool put_opt(struct dhcp6_buf *o, uint16_t code, const void *val,
		    size_t len)
{
	size_t start = o->len;

	if (put_opt_hdr(o, code, len) && put(o, val, len))
		return true;
	o->len = start;
	return false;
}

/**
 * put_status() - append a Status Code option
 * @o:		reply being written
 * @status:	status code
 * @text:	message for the operator reading a client's log
 *
 * Return: true if it fit
 */
static bool put_status(struct dhcp6_buf *o, uint16_t status, const char *text)
{
	size_t len = strlen(text);

	return put_opt_hdr(o, OPT_STATUS_CODE, 2 + len) &&
	       put(o, (uint8_t[2]){ status >> 8, status & 0xff }, 2) &&
	       put(o, text, len);
}

/**
 * put_iaaddr() - append an IA Address option
 * @o:		reply being written
 * @addr:	address, 16 bytes
 * @lifetime:	preferred and valid lifetime
 *
 * Return: true if it fit
 */
static bool put_iaaddr(struct dhcp6_buf *o, const void *addr, uint32_t lifetime)
{
	uint8_t v[IAADDR_LEN];

	memcpy(v, addr, 16);
	wr32(v + 16, lifetime);
	wr32(v + 20, lifetime);
	return put_opt(o, OPT_IAADDR, v, sizeof(v));
}

/**
 * put_stale_addrs() - return the client's other addresses with no lifetime
 * @c:		configuration
 * @o:		reply being written
 * @sub:	options nested in the client's IA_NA, checked well formed
 *
 * Return: true if they fit
 */
static bool put_stale_addrs(const struct conf *c, struct dhcp6_buf *o,
			    const struct pkt *sub)
{
	struct pkt val;
	size_t off = 0;
	uint16_t code;

	while (opt_next(sub, &off, &code, &val) == OPT_NEXT) {
		if (code != OPT_IAADDR || val.len < 16 ||
		    !memcmp(val.data, &c->addr6, 16))
			continue;
		if (!put_iaaddr(o, val.data, 0))
			return false;
	}
	return true;
}

/**
 * put_ia() - answer one IA_NA or IA_PD of the client
 * @c:		configuration
 * @o:		reply being written
 * @code:	OPT_IA_NA or OPT_IA_PD
 * @ia:		the client's IA option value, checked well formed
 * @assign:	give our address in this IA (only one IA_NA can have it)
 *
 * Return: true if it fit
 */
static bool put_ia(const struct conf *c, struct dhcp6_buf *o, uint16_t code,
		   const struct pkt *ia, bool assign)
{
	uint32_t t = assign ? LIFETIME_INFINITE : 0;
	size_t start = o->len;
	uint8_t hdr[IA_NA_HDR_LEN];
	struct pkt sub = { NULL, 0 };

	memcpy(hdr, ia->data, 4);
	wr32(hdr + 4, t);
	wr32(hdr + 8, t);
	pkt_sub(ia, IA_NA_HDR_LEN, &sub);

	if (!put_opt_hdr(o, code, 0) || !put(o, hdr, sizeof(hdr)))
		return false;
	if (code == OPT_IA_PD) {
		if (!put_status(o, STATUS_NOPREFIXAVAIL, "no prefixes"))
			return false;
	} else if (assign) {
		if (!put_iaaddr(o, &c->addr6, LIFETIME_INFINITE) ||
		    !put_stale_addrs(c, o, &sub))
			return false;
	} else if (!put_status(o, STATUS_NOADDRSAVAIL, "one address only")) {
		return false;
	}
	wr16(o->b + start + 2, (uint16_t)(o->len - start - DHCP6_OPT_HDR_LEN));
	return true;
}

/**
 * put_ias() - answer the IA_NA and IA_PD options of the client
 * @c:		configuration
 * @req:	parsed request
 * @o:		reply being written
 *
 * IA_TA options are left unanswered: temporary addresses are not offered.
 *
 * Return: true if all answers fit
 */
static bool put_ias(const struct conf *c, const struct dhcp6_req *req,
		    struct dhcp6_buf *o)
{
	bool assigned = false;
	struct pkt val;
	size_t off = 0;
	uint16_t code;

	while (opt_next(&req->opts, &off, &code, &val) == OPT_NEXT) {
		if (code != OPT_IA_NA && code != OPT_IA_PD)
			continue;
		if (!put_ia(c, o, code, &val, code == OPT_IA_NA && !assigned))
			return false;
		if (code == OPT_IA_NA)
			assigned = true;
	}
	return true;
}

/**
 * put_dns() - append DNS servers and search domains, if configured
 * @c:		configuration
 * @o:		reply being written
 *
 * These are optional to the client: either is left out if it does not fit.
 */
static void put_dns(const struct conf *c, struct dhcp6_buf *o)
{
	uint8_t list[CONF_MAX_SEARCH * (DNS_NAME_MAX + 1)];
	int i, n_dns = c->n_dns6;
	size_t len = 0;

	if (n_dns > CONF_MAX_DNS)
		n_dns = CONF_MAX_DNS;
	if (n_dns > 0)
		put_opt(o, OPT_DNS_SERVERS, c->dns6, 16 * (size_t)n_dns);

	for (i = 0; i < c->n_search && i < CONF_MAX_SEARCH; i++)
		len += dns_name_encode(c->search[i], list + len,
				       sizeof(list) - len);
	if (len)
		put_opt(o, OPT_DOMAIN_LIST, list, len);
}

/**
 * put_fqdn() - append the Client FQDN option (RFC 4704)
 * @c:		configuration
 * @req:	the client's message
 * @o:		reply being written
 *
 * With --fqdn, to every client, as passt does: RFC 4704 (section 6)
 * would have it only for clients that sent or asked for it, but a client
 * set up without the option still takes the name, and one that knows
 * nothing of it ignores it (RFC 8415, 16).  netshim updates no DNS
 * record: N set, S clear, O set if the client asked for S (section 4.1).
 * Left out if it does not fit.
 */
static void put_fqdn(const struct conf *c, const struct dhcp6_req *req,
		     struct dhcp6_buf *o)
{
	uint8_t val[1 + DNS_NAME_MAX + 1];
	size_t len;

	if (!*c->fqdn)
		return;
	val[0] = FQDN_N;
	if (req->has_fqdn && (req->fqdn_flags & FQDN_S))
		val[0] |= FQDN_O;
	len = dns_name_encode(c->fqdn, val + 1, sizeof(val) - 1);
	if (len)
		put_opt(o, OPT_CLIENT_FQDN, val, 1 + len);
}

/**
 * on_link() - whether an address is in the guest's prefix
 * @c:		configuration
 * @addr:	address, 16 bytes
 *
 * Return: true if @addr shares the first prefix6 bits of our address
 */
static bool on_link(const struct conf *c, const uint8_t *addr)
{
	const uint8_t *ours = c->addr6.s6_addr;
	int bits = c->prefix6 < 0 ? 0 : c->prefix6 > 128 ? 128 : c->prefix6;
	int bytes = bits / 8, rest = bits % 8;
	uint8_t mask = (uint8_t)(0xff << (8 - rest));

	if (memcmp(addr, ours, (size_t)bytes))
		return false;
	return !rest || !((addr[bytes] ^ ours[bytes]) & mask);
}

/**
 * confirm_status() - check the addresses a client asks to confirm
 * @c:		configuration
 * @req:	parsed CONFIRM
 * @status:	STATUS_SUCCESS or STATUS_NOTONLINK, set when returning true
 *
 * Return: false if there is no address in the message: no reply is sent then
 *	   (RFC 8415, 18.3.3)
 */
static bool confirm_status(const struct conf *c, const struct dhcp6_req *req,
			   uint16_t *status)
{
	struct pkt val, sub, addr;
	size_t off = 0, aoff;
	bool any = false;
	uint16_t code;

	*status = STATUS_SUCCESS;
	while (opt_next(&req->opts, &off, &code, &val) == OPT_NEXT) {
		if ((code != OPT_IA_NA && code != OPT_IA_TA) ||
		    !ia_opts(code, &val, &sub))
			continue;
		aoff = 0;
		while (opt_next(&sub, &aoff, &code, &addr) == OPT_NEXT) {
			if (code != OPT_IAADDR || addr.len < IAADDR_LEN)
				continue;
			any = true;
			if (!on_link(c, addr.data))
				*status = STATUS_NOTONLINK;
		}
	}
	return any;
}

/**
 * put_body() - append the options that depend on the message type
 * @c:		configuration
 * @req:	parsed request
 * @o:		reply being written
 *
 * Return: true if a reply is to be sent and its essential options fit
 */
static bool put_body(const struct conf *c, const struct dhcp6_req *req,
		     struct dhcp6_buf *o)
{
	uint16_t status;

	switch (req->type) {
	case SOLICIT:
		if (req->rapid_commit &&
		    !put_opt(o, OPT_RAPID_COMMIT, NULL, 0))
			return false;
		/* fall through */
	case REQUEST:
	case RENEW:
	case REBIND:
		if (!put_ias(c, req, o))
			return false;
		break;
	case CONFIRM:
		if (!confirm_status(c, req, &status))
			return false;
		return put_status(o, status, status == STATUS_SUCCESS ?
				  "all on link" : "not on link");
	case RELEASE:
	case DECLINE:
		return put_status(o, STATUS_SUCCESS, "ok");
	}
	put_dns(c, o);
	put_fqdn(c, req, o);
	return true;
}

/**
 * dhcp6_reply() - answer a DHCPv6 client message
 * @c:		configuration
 * @msg:	UDP payload the guest sent to port 547
 * @out:	reply, the UDP payload to send to port 546
 * @size:	room at @out
 *
 * Return: length of the reply, 0 if there is nothing to answer
 */
size_t dhcp6_reply(const struct conf *c, const struct pkt *msg,
		   uint8_t *out, size_t size)
{
	uint8_t duid[SERVER_DUID_LEN];
	struct dhcp6_req req;
	struct dhcp6_buf o;

	if (!c->v6 || c->no_dhcpv6 || size < DHCP6_HDR_LEN ||
	    !dhcp6_parse(c, msg, &req))
		return 0;

	/* the transaction ID, as the client sent it */
	pkt_copy(msg, 1, out + 1, 3);
	out[0] = req.type == SOLICIT && !req.rapid_commit ? ADVERTISE : REPLY;
	o.b = out;
	o.len = DHCP6_HDR_LEN;
	o.cap = size;

	server_duid(c, duid);
	if (req.has_client_id &&
	    !put_opt(&o, OPT_CLIENTID, req.client_id.data, req.client_id.len))
		return 0;
	if (!put_opt(&o, OPT_SERVERID, duid, sizeof(duid)) ||
	    !put_body(c, &req, &o))
		return 0;
	return o.len;
}
