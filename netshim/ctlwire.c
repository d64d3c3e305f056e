// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - the control socket's wire format: passt's pesto protocol and
 *	     netshim's own requests
 *
 * passt 2026's configuration client, pesto, speaks this over a UNIX
 * stream socket (-c PATH):
 *
 *   server: a greeting: "basil:s\0", then the version, the size of an
 *	     interface name and IFNAMSIZ, each 32 bits, big-endian;
 *	     each interface with a rule table: its number (8 bits), its
 *	     name (128 bytes, NUL-padded), capabilities and rule count (32
 *	     bits each), the rules; then interface number 0.
 *   client: nothing, to list; or the new tables in full: for each, its
 *	     number, its rule count (32 bits) and its rules; then 0.
 *
 * A rule is passt's struct fwd_rule as it lies in memory: listening
 * address and target address (16 bytes each, IPv4 v4-mapped), interface
 * name (16 bytes), first, last and target port (16 bits each, big-endian),
 * protocol and flags (8 bits each): 56 bytes.
 *
 * netshim's own client (netshim-ctl) reads the same greeting and tables,
 * and may send a line of its own instead of tables: "NSCTL1 VERB ARG\n".
 * Its first byte, 'N', is no interface number.
 *
 * Everything here is a pure function of its buffers: the server's parser
 * is fuzzed (tests/fuzz/fuzz_ctl.c).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "addrparse.h"
#include "ctlwire.h"
#include "inany.h"

/**
 * ctlwire_pif_name() - the name pesto knows an interface by
 * @pif:	its number
 *
 * Return: "HOST", "SPLICE", or NULL for another number
 */
const char *ctlwire_pif_name(uint8_t pif)
{
	if (pif == CTL_PIF_HOST)
		return "HOST";
	if (pif == CTL_PIF_SPLICE)
		return "SPLICE";
	return NULL;
}

/**
 * put32() - a 32-bit number, big-endian
 * @p:		where
 * @v:		the number
 */
static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/**
 * get32() - a 32-bit number, big-endian
 * @p:		where
 *
 * Return: the number
 */
static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/**
 * ctlwire_hello() - the server's greeting
 * @buf:	at least CTL_HELLO_LEN bytes
 *
 * Return: CTL_HELLO_LEN
 */
size_t ctlwire_hello(uint8_t *buf)
{
	memcpy(buf, CTL_MAGIC, 8);
	put32(buf + 8, CTL_VERSION);
	put32(buf + 12, CTL_PIF_NAME_SIZE);
	put32(buf + 16, CTL_IFNAMSIZ);
	return CTL_HELLO_LEN;
}

/**
 * ctlwire_rule_put() - one rule as it goes on the wire
 * @buf:	at least CTL_RULE_LEN bytes
 * @r:		the rule
 *
 * Return: CTL_RULE_LEN
 */
size_t ctlwire_rule_put(uint8_t *buf, const struct ctl_rule *r)
{
	memcpy(buf, &r->addr, 16);
	memcpy(buf + 16, &r->taddr, 16);
	memset(buf + 32, 0, CTL_IFNAMSIZ);
	memcpy(buf + 32, r->ifname, strnlen(r->ifname, CTL_IFNAMSIZ - 1));
	buf[48] = (uint8_t)(r->first >> 8);
	buf[49] = (uint8_t)r->first;
	buf[50] = (uint8_t)(r->last >> 8);
	buf[51] = (uint8_t)r->last;
	buf[52] = (uint8_t)(r->to >> 8);
	buf[53] = (uint8_t)r->to;
	buf[54] = r->proto;
	buf[55] = r->flags;
	return CTL_RULE_LEN;
}

/**
 * ctlwire_rule_get() - one rule from the wire
 * @buf:	CTL_RULE_LEN bytes
 * @r:		filled in; its interface name is as sent, NUL or not
 */
void ctlwire_rule_get(const uint8_t *buf, struct ctl_rule *r)
{
	memcpy(&r->addr, buf, 16);
	memcpy(&r->taddr, buf + 16, 16);
	memcpy(r->ifname, buf + 32, CTL_IFNAMSIZ);
	r->first = (uint16_t)(buf[48] << 8 | buf[49]);
	r->last = (uint16_t)(buf[50] << 8 | buf[51]);
	r->to = (uint16_t)(buf[52] << 8 | buf[53]);
	r->proto = buf[54];
	r->flags = buf[55];
}

/**
 * ctlwire_listing_put() - an interface and its rules, as the server lists
 *			   them after its greeting
 * @buf:	output
 * @size:	its size
 * @t:		the table
 *
 * Return: bytes written, 0 if @size is short
 */
size_t ctlwire_listing_put(uint8_t *buf, size_t size,
			   const struct ctl_table *t)
{
	const char *name = ctlwire_pif_name(t->pif);
	size_t len = CTL_PIF_INFO_LEN + (size_t)t->n * CTL_RULE_LEN;
	unsigned int i;

	if (!name || t->n > CTL_RULES_MAX || size < len)
		return 0;
	buf[0] = t->pif;
	memset(buf + 1, 0, CTL_PIF_NAME_SIZE);
	memcpy(buf + 1, name, strlen(name));
	put32(buf + 1 + CTL_PIF_NAME_SIZE, t->caps);
	put32(buf + 1 + CTL_PIF_NAME_SIZE + 4, t->n);
	for (i = 0; i < t->n; i++)
		ctlwire_rule_put(buf + CTL_PIF_INFO_LEN + i * CTL_RULE_LEN,
				 &t->rule[i]);
	return len;
}

/**
 * ctlwire_update_put() - a table as a client sends it
 * @buf:	output
 * @size:	its size
 * @t:		the table
 *
 * Return: bytes written, 0 if @size is short
 */
size_t ctlwire_update_put(uint8_t *buf, size_t size,
			  const struct ctl_table *t)
{
	size_t len = 5 + (size_t)t->n * CTL_RULE_LEN;
	unsigned int i;

	if (t->n > CTL_RULES_MAX || size < len)
		return 0;
	buf[0] = t->pif;
	put32(buf + 1, t->n);
	for (i = 0; i < t->n; i++)
		ctlwire_rule_put(buf + 5 + i * CTL_RULE_LEN, &t->rule[i]);
	return len;
}

/**
 * ctlwire_parse_text() - a request of netshim's own: one line
 * @buf:	input, starting with 'N'
 * @len:	bytes of it
 * @req:	filled in if the line is whole
 *
 * Return: NULL if the line is whole or may still be, else the reason
 */
static const char *ctlwire_parse_text(const uint8_t *buf, size_t len,
				      struct ctl_req *req)
{
	size_t plen = strlen(CTL_TEXT_PREFIX), i, v;
	const uint8_t *nl = memchr(buf, '\n', len);
	size_t n = nl ? (size_t)(nl - buf) : len;

	if (memcmp(buf, CTL_TEXT_PREFIX, n < plen ? n : plen))
		return "neither rule tables nor a request of netshim-ctl's";
	if (n >= CTL_TEXT_MAX)
		return "request line too long";
	if (!nl)
		return NULL;
	if (n < plen)
		return "not a request of netshim-ctl's";
	for (i = plen; i < n; i++)
		if (!isprint(buf[i]))
			return "request line with a byte that is not "
			       "printable ASCII";
	for (v = plen; v < n && (islower(buf[v]) || buf[v] == '-'); v++)
		;
	if (v == plen || v - plen >= sizeof(req->verb))
		return "no verb, or too long a verb";
	if (v < n && buf[v] != ' ')
		return "a verb of other than a-z and '-'";
	memcpy(req->verb, buf + plen, v - plen);
	req->verb[v - plen] = '\0';
	if (v < n) {
		memcpy(req->arg, buf + v + 1, n - v - 1);
		req->arg[n - v - 1] = '\0';
	} else {
		req->arg[0] = '\0';
	}
	req->kind = CTL_REQ_TEXT;
	req->len = n + 1;
	return NULL;
}

/**
 * ctlwire_parse_tables() - rule tables, as passt reads them
 * @buf:	input
 * @len:	bytes of it
 * @req:	filled in once the tables are whole
 *
 * Return: NULL if the tables are whole or may still be, else the reason
 */
static const char *ctlwire_parse_tables(const uint8_t *buf, size_t len,
					struct ctl_req *req)
{
	size_t off = 0;
	unsigned int i;

	for (;;) {
		struct ctl_table *t;
		uint32_t count;

		if (off >= len)
			return NULL;
		if (buf[off] == CTL_PIF_NONE)
			break;
		for (i = 0; i < req->n; i++)
			if (req->table[i].pif == buf[off])
				return "an interface's table given twice";
		if (req->n >= CTL_PIFS_MAX)
			return "more tables than netshim has interfaces";
		if (len - off < 5)
			return NULL;
		count = get32(buf + off + 1);
		if (count > CTL_RULES_MAX)
			return "more rules than a table holds (255)";
		if (len - off - 5 < (size_t)count * CTL_RULE_LEN)
			return NULL;
		t = &req->table[req->n++];
		t->pif = buf[off];
		t->caps = 0;
		t->n = count;
		off += 5;
		for (i = 0; i < count; i++, off += CTL_RULE_LEN) {
			ctlwire_rule_get(buf + off, &t->rule[i]);
			if (!memchr(t->rule[i].ifname, '\0', CTL_IFNAMSIZ))
				return "interface name not NUL-terminated";
		}
	}
	req->kind = CTL_REQ_RULES;
	req->len = off + 1;
	return NULL;
}

/**
 * ctlwire_parse() - what a client sent so far
 * @buf:	its bytes
 * @len:	how many
 * @req:	filled in: CTL_REQ_MORE until a whole request is there
 *
 * Rule tables are read as passt reads them: at most CTL_RULES_MAX rules
 * a table, each interface once, interface names NUL-terminated.  Whether
 * the interfaces exist and the rules hold is the caller's to check.
 */
void ctlwire_parse(const uint8_t *buf, size_t len, struct ctl_req *req)
{
	const char *why;

	req->kind = CTL_REQ_MORE;
	req->n = 0;
	req->len = 0;
	req->why = NULL;
	if (!len)
		return;
	if (buf[0] == 'N')
		why = ctlwire_parse_text(buf, len, req);
	else
		why = ctlwire_parse_tables(buf, len, req);
	if (why) {
		req->kind = CTL_REQ_BAD;
		req->why = why;
	}
}

/**
 * ctlwire_listing_parse() - the server's greeting and tables, as a client
 *			     reads them
 * @buf:	bytes read so far
 * @len:	how many
 * @t:		filled in: the tables
 * @max:	room in @t
 * @n:		set to the tables read
 * @used:	set to the bytes they took, once complete
 * @why:	set to the reason on failure
 *
 * Return: 1 once complete, 0 if more bytes are needed, -1 if malformed
 */
int ctlwire_listing_parse(const uint8_t *buf, size_t len,
			  struct ctl_table *t, unsigned int max,
			  unsigned int *n, size_t *used, const char **why)
{
	size_t off = CTL_HELLO_LEN;
	unsigned int i;

	*n = 0;
	if (len < CTL_HELLO_LEN)
		return 0;
	if (memcmp(buf, CTL_MAGIC, 8)) {
		*why = "not a pesto server's greeting";
		return -1;
	}
	if (get32(buf + 8) != CTL_VERSION ||
	    get32(buf + 12) != CTL_PIF_NAME_SIZE ||
	    get32(buf + 16) != CTL_IFNAMSIZ) {
		*why = "another version of the protocol";
		return -1;
	}
	for (;;) {
		uint32_t count;

		if (off >= len)
			return 0;
		if (buf[off] == CTL_PIF_NONE)
			break;
		if (*n >= max) {
			*why = "more interfaces than expected";
			return -1;
		}
		if (len - off < CTL_PIF_INFO_LEN)
			return 0;
		count = get32(buf + off + 1 + CTL_PIF_NAME_SIZE + 4);
		if (count > CTL_RULES_MAX) {
			*why = "more rules than a table holds";
			return -1;
		}
		if (len - off - CTL_PIF_INFO_LEN <
		    (size_t)count * CTL_RULE_LEN)
			return 0;
		t[*n].pif = buf[off];
		t[*n].caps = get32(buf + off + 1 + CTL_PIF_NAME_SIZE);
		t[*n].n = count;
		off += CTL_PIF_INFO_LEN;
		for (i = 0; i < count; i++, off += CTL_RULE_LEN) {
			ctlwire_rule_get(buf + off, &t[*n].rule[i]);
			t[*n].rule[i].ifname[CTL_IFNAMSIZ - 1] = '\0';
		}
		(*n)++;
	}
	*used = off + 1;
	return 1;
}

/**
 * ctlwire_addr_fmt() - an address as passt prints it in a rule
 * @a:		the address, v4-mapped for IPv4
 * @buf:	output, INET6_ADDRSTRLEN bytes
 */
static void ctlwire_addr_fmt(const struct in6_addr *a, char *buf)
{
	if (inany_is4(a)) {
		struct in_addr a4 = inany_to4(a);

		inet_ntop(AF_INET, &a4, buf, INET6_ADDRSTRLEN);
	} else {
		inet_ntop(AF_INET6, a, buf, INET6_ADDRSTRLEN);
	}
}

/**
 * ctlwire_rule_fmt() - a rule as pesto lists it, "TCP [*]:22  =>  22 "
 * @r:		the rule
 * @buf:	output, CTL_RULE_STRLEN bytes
 * @size:	its size
 *
 * Return: @buf
 */
const char *ctlwire_rule_fmt(const struct ctl_rule *r, char *buf,
			     size_t size)
{
	char a[INET6_ADDRSTRLEN], ta[INET6_ADDRSTRLEN + 1] = "";
	char from[16], to[16];
	const char *proto;

	proto = r->proto == IPPROTO_TCP ? "TCP" :
		r->proto == IPPROTO_UDP ? "UDP" : "<unknown protocol>";
	if (r->flags & CTL_F_DUAL)
		strcpy(a, "*");
	else
		ctlwire_addr_fmt(&r->addr, a);
	if (!IN6_IS_ADDR_UNSPECIFIED(&r->taddr)) {
		ctlwire_addr_fmt(&r->taddr, ta);
		strcat(ta, ":");
	}
	if (r->first == r->last) {
		snprintf(from, sizeof(from), "%u", r->first);
		snprintf(to, sizeof(to), "%u", r->to);
	} else {
		snprintf(from, sizeof(from), "%u-%u", r->first, r->last);
		snprintf(to, sizeof(to), "%u-%u", r->to,
			 (uint16_t)(r->to + (r->last - r->first)));
	}
	snprintf(buf, size, "%s [%s]%s%.*s:%s  =>  %s%s %s%s", proto, a,
		 *r->ifname ? "%" : "", CTL_IFNAMSIZ - 1, r->ifname, from, ta,
		 to, r->flags & CTL_F_WEAK ? " (best effort)" : "",
		 r->flags & CTL_F_SCAN ? " (auto-scan)" : "");
	return buf;
}

/**
 * ctlwire_rule_check() - whether a rule can be served, as passt checks it
 * @r:		the rule, its interface name NUL-terminated
 * @caps:	the capabilities of its table
 *
 * Return: NULL if it can, else the reason
 */
const char *ctlwire_rule_check(const struct ctl_rule *r, uint32_t caps)
{
	bool v4 = inany_is4(&r->addr);
	struct in_addr t4;

	if (r->first > r->last)
		return "inverted port range";
	if (!r->first)
		return "port 0 cannot be forwarded";
	if (!r->to || (uint16_t)(r->to + (r->last - r->first)) < r->to)
		return "maps to port 0, or past port 65535";
	if (r->flags & ~(CTL_F_DUAL | CTL_F_WEAK | CTL_F_SCAN))
		return "unknown flags";
	if (r->proto != IPPROTO_TCP && r->proto != IPPROTO_UDP)
		return "a protocol other than TCP and UDP";
	if (!(caps & (r->proto == IPPROTO_TCP ? CTL_CAP_TCP : CTL_CAP_UDP)))
		return r->proto == IPPROTO_TCP ? "TCP is disabled (--no-tcp)" :
						 "UDP is disabled (--no-udp)";
	if (r->flags & CTL_F_DUAL) {
		if (!IN6_IS_ADDR_UNSPECIFIED(&r->addr))
			return "both families, but an address given";
		if ((caps & (CTL_CAP_IPV4 | CTL_CAP_IPV6)) !=
		    (CTL_CAP_IPV4 | CTL_CAP_IPV6))
			return "both families, but one is disabled";
	} else if (!(caps & (v4 ? CTL_CAP_IPV4 : CTL_CAP_IPV6))) {
		return v4 ? "an IPv4 address, and IPv4 is disabled" :
			    "an IPv6 address, and IPv6 is disabled";
	}
	if ((r->flags & CTL_F_SCAN) && !(caps & CTL_CAP_SCAN))
		return "auto (following listeners) is not available here";
	if (*r->ifname) {
		if (!(caps & CTL_CAP_IFNAME))
			return "binding to an interface is not available here";
		if (!strcmp(r->ifname, ".") || !strcmp(r->ifname, "..") ||
		    strchr(r->ifname, '/'))
			return "not an interface name";
	}
	if (IN6_IS_ADDR_UNSPECIFIED(&r->taddr))
		return NULL;
	if (r->flags & CTL_F_DUAL)
		return "a target address, and both families: give 0.0.0.0/ "
		       "or [::]/ before the ports";
	if (v4 != inany_is4(&r->taddr))
		return "listening and target addresses of different families";
	t4 = inany_to4(&r->taddr);
	if (addr_not_unicast(v4 ? AF_INET : AF_INET6, &t4, &r->taddr) ||
	    addr_is_loopback(v4 ? AF_INET : AF_INET6, &t4, &r->taddr))
		return "target address: not a unicast address of a guest";
	return NULL;
}

/**
 * ctlwire_addr_matches() - whether two rules' addresses take the same
 *			    connections, as passt tells
 * @a:		one rule
 * @b:		the other
 *
 * Return: true for the same address, or any address of the other's
 *	   family, or both families
 */
static bool ctlwire_addr_matches(const struct ctl_rule *a,
				 const struct ctl_rule *b)
{
	if ((a->flags | b->flags) & CTL_F_DUAL)
		return true;
	if (inany_is4(&a->addr) != inany_is4(&b->addr))
		return false;
	if (IN6_IS_ADDR_UNSPECIFIED(&a->addr) ||
	    IN6_IS_ADDR_UNSPECIFIED(&b->addr) ||
	    (inany_is4(&a->addr) && !inany_to4(&a->addr).s_addr) ||
	    (inany_is4(&b->addr) && !inany_to4(&b->addr).s_addr))
		return true;
	return inany_eq(&a->addr, &b->addr);
}

/**
 * ctlwire_rules_conflict() - whether two rules would take the same ports
 * @a:		one rule
 * @b:		the other
 *
 * Return: true for the same protocol, matching addresses and overlapping
 *	   port ranges
 */
bool ctlwire_rules_conflict(const struct ctl_rule *a, const struct ctl_rule *b)
{
	return a->proto == b->proto && ctlwire_addr_matches(a, b) &&
	       a->first <= b->last && b->first <= a->last;
}

/**
 * ctlwire_table_check() - whether every rule of a table can be served,
 *			   and no two conflict
 * @t:		the table, with its capabilities
 * @why:	set to the reason, naming the rule
 * @size:	its size
 *
 * Return: 0 if the table holds, -1 if not
 */
int ctlwire_table_check(const struct ctl_table *t, char *why, size_t size)
{
	char a[CTL_RULE_STRLEN], b[CTL_RULE_STRLEN];
	unsigned int i, j;
	const char *e;

	for (i = 0; i < t->n; i++) {
		e = ctlwire_rule_check(&t->rule[i], t->caps);
		if (e) {
			snprintf(why, size, "%s: %s",
				 ctlwire_rule_fmt(&t->rule[i], a, sizeof(a)), e);
			return -1;
		}
		for (j = 0; j < i; j++) {
			if (!ctlwire_rules_conflict(&t->rule[i], &t->rule[j]))
				continue;
			snprintf(why, size, "%s conflicts with %s",
				 ctlwire_rule_fmt(&t->rule[i], a, sizeof(a)),
				 ctlwire_rule_fmt(&t->rule[j], b, sizeof(b)));
			return -1;
		}
	}
	return 0;
}
