// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - DHCPv4 server (RFC 2131, RFC 2132, RFC 3397)
 *
 * netshim is the guest's only neighbour and its router, so the address pool
 * is a single address: the pod's own.  There is no lease state: every
 * lease is infinite, and a request for anything else is refused, which makes
 * a guest that remembers an old address start over.
 */
#include <string.h>

#include "netshim/dnsname.h"
#include "dhcp.h"

/* BOOTP message layout (RFC 2131, 2) */
#define BOOTP_OP		0
#define BOOTP_HTYPE		1
#define BOOTP_HLEN		2
#define BOOTP_XID		4
#define BOOTP_FLAGS		10
#define BOOTP_CIADDR		12
#define BOOTP_YIADDR		16
#define BOOTP_GIADDR		24
#define BOOTP_CHADDR		28
#define BOOTP_CHADDR_LEN	16
#define BOOTP_COOKIE		236
#define DHCP_OPTIONS		240

#define BOOTREQUEST		1
#define BOOTREPLY		2
#define HTYPE_ETHER		1
#define BOOTP_BROADCAST		0x8000
#define DHCP_MAGIC		0x63825363

/* Some old relays and clients drop BOOTP messages under 300 bytes (RFC 1542) */
#define BOOTP_MIN_LEN		300
/* Every host takes a 576-byte datagram (RFC 2131, 2; RFC 2132, 9.10) */
#define DHCP_MIN_DATAGRAM	576
#define IP4_UDP_HDR_LEN		28

/* Option codes (RFC 2132, RFC 3397) */
enum dhcp4_opt {
	OPT_PAD		= 0,
	OPT_MASK	= 1,
	OPT_ROUTER	= 3,
	OPT_DNS		= 6,
	OPT_HOSTNAME	= 12,
	OPT_DOMAIN	= 15,
	OPT_MTU		= 26,
	OPT_REQ_ADDR	= 50,
	OPT_LEASE	= 51,
	OPT_MSG_TYPE	= 53,
	OPT_SERVER_ID	= 54,
	OPT_MAX_SIZE	= 57,
	OPT_RAPID_COMMIT = 80,
	OPT_CLIENT_FQDN	= 81,
	OPT_SEARCH	= 119,
	OPT_ROUTES	= 121,
	OPT_END		= 255,
};

/* DHCP message types (RFC 2132, 9.6) */
enum dhcp4_type {
	DHCPDISCOVER	= 1,
	DHCPOFFER	= 2,
	DHCPREQUEST	= 3,
	DHCPDECLINE	= 4,
	DHCPACK		= 5,
	DHCPNAK		= 6,
	DHCPRELEASE	= 7,
	DHCPINFORM	= 8,
};

#define OPT_MAX_LEN		255

/**
 * struct dhcp4_req - what a client request asks for
 * @type:	DHCP message type, 0 if the option is missing or malformed
 * @ciaddr:	client address from the fixed header
 * @req_addr:	requested address (option 50), if @has_req_addr
 * @has_req_addr: option 50 was present
 * @server_id:	server identifier (option 54), if @has_server_id
 * @has_server_id: option 54 was present
 * @max_size:	maximum DHCP message size (option 57), 0 if absent
 * @fqdn_flags:	flags of the client's Client FQDN option, if @has_fqdn
 * @has_fqdn:	the client sent a Client FQDN option (81)
 * @rapid_commit: the client sent Rapid Commit (80, RFC 4039)
 */
struct dhcp4_req {
	uint8_t type;
	struct in_addr ciaddr;
	struct in_addr req_addr;
	bool has_req_addr;
	struct in_addr server_id;
	bool has_server_id;
	uint16_t max_size;
	uint8_t fqdn_flags;
	bool has_fqdn;
	bool rapid_commit;
};

/* Client FQDN option flags (RFC 4702, 2.1) */
#define FQDN_S		0x01	/* server updates the A record */
#define FQDN_O		0x02	/* server overrode the client's S */
#define FQDN_E		0x04	/* name in canonical wire format */
#define FQDN_N		0x08	/* server updates no record */
#define FQDN_RCODE_SERVER	255	/* RCODE1 and RCODE2 from a server */

/**
 * struct dhcp4_buf - reply being written
 * @b:		reply bytes
 * @len:	bytes written so far
 * @cap:	bytes that may be written, one less than the limit: END is
 *		always kept room for
 */
struct dhcp4_buf {
	uint8_t *b;
	size_t len;
	size_t cap;
};

/**
 * dhcp4_opt_store() - remember one option of a request, if it is of use
 * @req:	request being parsed
 * @code:	option code
 * @val:	option value, @len bytes, already checked to be in the message
 * @len:	option length
 *
 * Options with an unexpected length are ignored, as if absent.
 */
static void dhcp4_opt_store(struct dhcp4_req *req, uint8_t code,
			    const uint8_t *val, size_t len)
{
	switch (code) {
	case OPT_MSG_TYPE:
		if (len == 1)
			req->type = val[0];
		break;
	case OPT_REQ_ADDR:
		if (len == 4) {
			memcpy(&req->req_addr, val, 4);
			req->has_req_addr = true;
		}
		break;
	case OPT_SERVER_ID:
		if (len == 4) {
			memcpy(&req->server_id, val, 4);
			req->has_server_id = true;
		}
		break;
	case OPT_MAX_SIZE:
		if (len == 2)
			req->max_size = rd16(val);
		break;
	case OPT_CLIENT_FQDN:
		/* Flags, RCODE1, RCODE2, then the name */
		if (len >= 3) {
			req->fqdn_flags = val[0];
			req->has_fqdn = true;
		}
		break;
	case OPT_RAPID_COMMIT:
		/* RFC 4039, 4: the option has no data */
		if (!len)
			req->rapid_commit = true;
		break;
	}
}

/**
 * dhcp4_opts_parse() - walk the options field of a request
 * @msg:	whole BOOTP message, at least DHCP_OPTIONS bytes
 * @req:	request, filled in
 *
 * Option overload (52) is deliberately not followed: nothing netshim needs
 * is ever sent in the sname or file fields, and not following it means
 * there is exactly one linear walk, which always advances.
 *
 * Return: true if the options are well formed and end with END
 */
static bool dhcp4_opts_parse(const struct pkt *msg, struct dhcp4_req *req)
{
	size_t off = DHCP_OPTIONS;
	const uint8_t *hdr, *val;

	for (;;) {
		hdr = pkt_get(msg, off, 1);
		if (!hdr)
			return false;
		if (hdr[0] == OPT_END)
			return true;
		if (hdr[0] == OPT_PAD) {
			off++;
			continue;
		}

		hdr = pkt_get(msg, off, 2);
		if (!hdr)
			return false;
		val = pkt_get(msg, off + 2, hdr[1]);
		if (!val)
			return false;

		dhcp4_opt_store(req, hdr[0], val, hdr[1]);
		off += 2 + (size_t)hdr[1];
	}
}

/**
 * dhcp4_parse() - check a client message and extract its request
 * @msg:	UDP payload from the guest
 * @req:	request, filled in
 *
 * Return: true if @msg is a well-formed Ethernet BOOTREQUEST with DHCP options
 */
static bool dhcp4_parse(const struct pkt *msg, struct dhcp4_req *req)
{
	const uint8_t *h = pkt_get(msg, 0, DHCP_OPTIONS);

	memset(req, 0, sizeof(*req));
	if (!h)
		return false;
	if (h[BOOTP_OP] != BOOTREQUEST || h[BOOTP_HTYPE] != HTYPE_ETHER ||
	    h[BOOTP_HLEN] != ETH_ALEN_ || rd32(h + BOOTP_COOKIE) != DHCP_MAGIC)
		return false;

	memcpy(&req->ciaddr, h + BOOTP_CIADDR, 4);
	return dhcp4_opts_parse(msg, req);
}

/**
 * dhcp4_reply_type() - decide how to answer a request
 * @c:		configuration
 * @req:	parsed request
 *
 * Return: DHCPOFFER, DHCPACK, DHCPNAK, or 0 for no answer
 */
static uint8_t dhcp4_reply_type(const struct conf *c,
				const struct dhcp4_req *req)
{
	struct in_addr want;

	switch (req->type) {
	case DHCPDISCOVER:
		/* RFC 4039, 3: a server with one address to give and no
		 * other server to defer to commits it at once
		 */
		return req->rapid_commit ? DHCPACK : DHCPOFFER;
	case DHCPINFORM:
		return DHCPACK;
	case DHCPREQUEST:
		/* The client chose another server's offer: stay quiet */
		if (req->has_server_id &&
		    req->server_id.s_addr != c->gw4.s_addr)
			return 0;
		want = req->has_req_addr ? req->req_addr : req->ciaddr;
		return want.s_addr == c->addr4.s_addr ? DHCPACK : DHCPNAK;
	default:
		/* DECLINE and RELEASE: there is no other address to give */
		return 0;
	}
}

/**
 * dhcp4_put() - append one option to the reply
 * @o:		reply being written
 * @code:	option code
 * @val:	option value
 * @len:	option length, at most OPT_MAX_LEN
 *
 * Return: true if it fit, false (and nothing written) otherwise
 */
static bool dhcp4_put(struct dhcp4_buf *o, uint8_t code, const void *val,
		      size_t len)
{
	if (len > OPT_MAX_LEN || o->len > o->cap || o->cap - o->len < 2 + len)
		return false;
	o->b[o->len] = code;
	o->b[o->len + 1] = (uint8_t)len;
	memcpy(o->b + o->len + 2, val, len);
	o->len += 2 + len;
	return true;
}

/**
 * dhcp4_put_long() - append an option that may need splitting (RFC 3396)
 * @o:		reply being written
 * @code:	option code
 * @val:	option value
 * @len:	option length, any
 *
 * Return: true if all of it fit, false (and nothing written) otherwise
 */
static bool dhcp4_put_long(struct dhcp4_buf *o, uint8_t code,
			   const uint8_t *val, size_t len)
{
	size_t parts = (len + OPT_MAX_LEN - 1) / OPT_MAX_LEN, chunk;

	if (!len || o->len > o->cap || o->cap - o->len < len + 2 * parts)
		return false;
	for (; len; val += chunk, len -= chunk) {
		chunk = len < OPT_MAX_LEN ? len : OPT_MAX_LEN;
		dhcp4_put(o, code, val, chunk);
	}
	return true;
}

/**
 * dhcp4_put_search() - append the domain search list option (RFC 3397)
 * @c:		configuration
 * @o:		reply being written
 *
 * Compression is allowed by RFC 3397 but not needed: a handful of names
 * fit anyway, and a client's decoder never meets a pointer.  Names that
 * cannot be encoded are left out.
 */
static void dhcp4_put_search(const struct conf *c, struct dhcp4_buf *o)
{
	uint8_t list[CONF_MAX_SEARCH * (DNS_NAME_MAX + 1)];
	size_t len = 0;
	int i;

	for (i = 0; i < c->n_search && i < CONF_MAX_SEARCH; i++)
		len += dns_name_encode(c->search[i], list + len,
				       sizeof(list) - len);
	if (len)
		dhcp4_put_long(o, OPT_SEARCH, list, len);
}

/**
 * dhcp4_put_domain() - append the domain name option: the first search entry
 * @c:		configuration
 * @o:		reply being written
 */
static void dhcp4_put_domain(const struct conf *c, struct dhcp4_buf *o)
{
	size_t len;

	if (c->n_search < 1)
		return;
	len = strnlen(c->search[0], sizeof(c->search[0]));
	if (len && c->search[0][len - 1] == '.')
		len--;
	if (len)
		dhcp4_put(o, OPT_DOMAIN, c->search[0], len);
}

/**
 * dhcp4_put_fqdn() - append the Client FQDN option (RFC 4702)
 * @c:		configuration, c->fqdn set
 * @req:	the client's request
 * @o:		reply being written
 *
 * To every client, as passt does, though RFC 4702 (section 4) would
 * have it only for clients that sent the option: ISC dhclient's default
 * configuration neither sends nor asks for it, yet its scripts take the
 * name when it comes, and a client that knows nothing of the option
 * ignores it.  netshim updates no DNS record: N set, S clear, O set if
 * the client asked for S (section 3.3).  The name goes in the encoding
 * the client used, canonical wire format if it sent none (the ASCII form
 * is deprecated, section 2.1).
 */
static void dhcp4_put_fqdn(const struct conf *c, const struct dhcp4_req *req,
			   struct dhcp4_buf *o)
{
	uint8_t val[3 + DNS_NAME_MAX + 1];
	bool wire = !req->has_fqdn || (req->fqdn_flags & FQDN_E);
	size_t len;

	val[0] = FQDN_N | (wire ? FQDN_E : 0);
	if (req->has_fqdn && (req->fqdn_flags & FQDN_S))
		val[0] |= FQDN_O;
	val[1] = val[2] = FQDN_RCODE_SERVER;
	if (wire) {
		len = dns_name_encode(c->fqdn, val + 3, sizeof(val) - 3);
	} else {
		len = strnlen(c->fqdn, sizeof(c->fqdn));
		memcpy(val + 3, c->fqdn, len);
	}
	if (len)
		dhcp4_put(o, OPT_CLIENT_FQDN, val, 3 + len);
}

/**
 * dhcp4_put_names() - append the host name and FQDN given for the guest
 * @c:		configuration
 * @req:	the client's request
 * @o:		reply being written
 */
static void dhcp4_put_names(const struct conf *c, const struct dhcp4_req *req,
			    struct dhcp4_buf *o)
{
	size_t len = strnlen(c->hostname, sizeof(c->hostname));

	if (len)
		dhcp4_put(o, OPT_HOSTNAME, c->hostname, len);
	if (*c->fqdn)
		dhcp4_put_fqdn(c, req, o);
}

/**
 * prefix_to_mask() - IPv4 netmask of a prefix length
 * @prefix:	prefix length, clamped to 0..32
 *
 * Return: the mask, network order
 */
static uint32_t prefix_to_mask(int prefix)
{
	if (prefix <= 0)
		return 0;
	if (prefix >= 32)
		return htonl(0xffffffff);
	return htonl(~(0xffffffffU >> prefix));
}

/**
 * dhcp4_put_routes() - classless static routes when the gateway is off-link
 * @c:		configuration
 * @o:		reply being written
 *
 * Pods often have a /32 address with a gateway outside it (Calico's
 * 169.254.1.1): a plain router option then names a gateway the guest cannot
 * reach.  Option 121 (RFC 3442) gives a host route to the gateway on the
 * link, then the default route through it; clients that take option 121
 * ignore option 3.
 *
 * Return: true if it fit, or was not needed
 */
static bool dhcp4_put_routes(const struct conf *c, struct dhcp4_buf *o)
{
	uint32_t mask = prefix_to_mask(c->prefix4);
	uint8_t r[5 + 4 + 1 + 4];

	if (!((c->addr4.s_addr ^ c->gw4.s_addr) & mask))
		return true;
	r[0] = 32;			/* gateway/32, on the link */
	memcpy(r + 1, &c->gw4, 4);
	memset(r + 5, 0, 4);
	r[9] = 0;			/* default, through the gateway */
	memcpy(r + 10, &c->gw4, 4);
	return dhcp4_put(o, OPT_ROUTES, r, sizeof(r));
}

/**
 * dhcp4_put_config() - append the options that configure the guest
 * @c:		configuration
 * @req:	the client's request
 * @o:		reply being written
 * @type:	DHCPOFFER or DHCPACK
 * @lease:	include a lease time (not in answers to DHCPINFORM)
 *
 * Search options come last and are the ones dropped when room runs out:
 * a guest can live without them, not without a mask or a router.
 *
 * Return: true if every essential option fit
 */
static bool dhcp4_put_config(const struct conf *c,
			     const struct dhcp4_req *req, struct dhcp4_buf *o,
			     uint8_t type, bool lease)
{
	uint8_t lease_time[4], mtu[2];
	uint32_t mask = prefix_to_mask(c->prefix4);
	int n_dns = c->n_dns4;

	if (n_dns > CONF_MAX_DNS)
		n_dns = CONF_MAX_DNS;
	wr32(lease_time, 0xffffffff);

	if (!dhcp4_put(o, OPT_MSG_TYPE, &type, 1) ||
	    (req->type == DHCPDISCOVER && type == DHCPACK &&
	     !dhcp4_put(o, OPT_RAPID_COMMIT, "", 0)) ||
	    !dhcp4_put(o, OPT_SERVER_ID, &c->gw4, 4) ||
	    (lease && !dhcp4_put(o, OPT_LEASE, lease_time, 4)) ||
	    !dhcp4_put(o, OPT_MASK, &mask, 4) ||
	    !dhcp4_put(o, OPT_ROUTER, &c->gw4, 4) ||
	    !dhcp4_put_routes(c, o))
		return false;
	if (n_dns > 0 && !dhcp4_put(o, OPT_DNS, c->dns4, 4 * (size_t)n_dns))
		return false;
	if (c->mtu >= 68 && c->mtu <= 65535) {
		wr16(mtu, (uint16_t)c->mtu);
		if (!dhcp4_put(o, OPT_MTU, mtu, 2))
			return false;
	}

	dhcp4_put_names(c, req, o);
	dhcp4_put_domain(c, o);
	dhcp4_put_search(c, o);
	return true;
}

/**
 * dhcp4_header() - write the fixed part of a reply
 * @h:		request header, DHCP_OPTIONS bytes
 * @out:	reply, at least DHCP_OPTIONS bytes
 * @yiaddr:	address given to the client, or 0
 */
static void dhcp4_header(const uint8_t *h, uint8_t *out, struct in_addr yiaddr)
{
	memset(out, 0, DHCP_OPTIONS);
	out[BOOTP_OP] = BOOTREPLY;
	out[BOOTP_HTYPE] = HTYPE_ETHER;
	out[BOOTP_HLEN] = ETH_ALEN_;
	memcpy(out + BOOTP_XID, h + BOOTP_XID, 4);
	memcpy(out + BOOTP_FLAGS, h + BOOTP_FLAGS, 2);
	memcpy(out + BOOTP_YIADDR, &yiaddr, 4);
	memcpy(out + BOOTP_GIADDR, h + BOOTP_GIADDR, 4);
	memcpy(out + BOOTP_CHADDR, h + BOOTP_CHADDR, BOOTP_CHADDR_LEN);
	wr32(out + BOOTP_COOKIE, DHCP_MAGIC);
}

/**
 * dhcp4_limit() - largest reply the client takes and the caller has room for
 * @req:	parsed request
 * @size:	room in the caller's buffer
 *
 * Return: maximum length of the reply
 */
static size_t dhcp4_limit(const struct dhcp4_req *req, size_t size)
{
	size_t max = req->max_size > DHCP_MIN_DATAGRAM ? req->max_size :
							 DHCP_MIN_DATAGRAM;

	max -= IP4_UDP_HDR_LEN;
	return size < max ? size : max;
}

/**
 * dhcp4_set_dest() - tell the caller where the reply goes
 * @h:		request header
 * @req:	parsed request
 * @type:	type of the reply
 * @yiaddr:	address given to the client, or 0
 * @dest:	destination, filled in
 *
 * RFC 2131, 4.1: a client with an address gets unicast; one without may not
 * take unicast before it is configured, and a NAK is always broadcast.
 */
static void dhcp4_set_dest(const uint8_t *h, const struct dhcp4_req *req,
			   uint8_t type, struct in_addr yiaddr,
			   struct dhcp4_dest *dest)
{
	dest->broadcast = type == DHCPNAK || !req->ciaddr.s_addr ||
			  (rd16(h + BOOTP_FLAGS) & BOOTP_BROADCAST);
	dest->yiaddr = req->ciaddr.s_addr ? req->ciaddr : yiaddr;
	memcpy(dest->chaddr, h + BOOTP_CHADDR, ETH_ALEN_);
}

/**
 * dhcp4_reply() - answer a DHCPv4 client message
 * @c:		configuration
 * @msg:	UDP payload the guest sent to port 67
 * @out:	reply, the UDP payload to send to port 68
 * @size:	room at @out
 * @dest:	where to send the reply, filled in when there is one
 *
 * Return: length of the reply, 0 if there is nothing to answer
 */
size_t dhcp4_reply(const struct conf *c, const struct pkt *msg,
		   uint8_t *out, size_t size, struct dhcp4_dest *dest)
{
	struct in_addr yiaddr = { 0 };
	struct dhcp4_req req;
	struct dhcp4_buf o;
	const uint8_t *h;
	uint8_t type;
	size_t limit;

	if (!c->v4 || c->no_dhcp || !dhcp4_parse(msg, &req))
		return 0;
	type = dhcp4_reply_type(c, &req);
	if (!type)
		return 0;

	limit = dhcp4_limit(&req, size);
	if (limit <= DHCP_OPTIONS)
		return 0;

	h = pkt_get(msg, 0, DHCP_OPTIONS);
	if (type != DHCPNAK && req.type != DHCPINFORM)
		yiaddr = c->addr4;
	dhcp4_header(h, out, yiaddr);

	o.b = out;
	o.len = DHCP_OPTIONS;
	o.cap = limit - 1;
	if (type == DHCPNAK) {
		if (!dhcp4_put(&o, OPT_MSG_TYPE, &type, 1) ||
		    !dhcp4_put(&o, OPT_SERVER_ID, &c->gw4, 4))
			return 0;
	} else if (!dhcp4_put_config(c, &req, &o, type,
				     req.type != DHCPINFORM)) {
		return 0;
	}
	out[o.len++] = OPT_END;

	if (o.len < BOOTP_MIN_LEN && limit >= BOOTP_MIN_LEN) {
		memset(out + o.len, OPT_PAD, BOOTP_MIN_LEN - o.len);
		o.len = BOOTP_MIN_LEN;
	}

	dhcp4_set_dest(h, &req, type, yiaddr, dest);
	return o.len;
}
