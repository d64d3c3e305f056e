// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - the forwarding specs of -t, -u, -T and -U: grammar and lookup
 *
 * A spec is "none", "auto", "all", or a comma-separated list of ports and
 * ranges, each with an optional bind address and interface
 * (ADDR%IF/PORT), an optional target port (PORT:TO) and exclusions (~PORT).
 * Parsed once at start into a struct fwd_spec; looked up per port.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <arpa/inet.h>

#include "addrparse.h"
#include "fwdspec.h"
#include "inany.h"
#include "log.h"

#define FWD_SPEC_MAX		1024

/**
 * fwd_port() - parse a port number, 1-65535, at the start of @s
 * @s:		text
 * @end:	first character after the number, output
 * @port:	value, set on success
 *
 * Return: NULL on success, else the reason
 */
static const char *fwd_port(const char *s, const char **end, uint16_t *port)
{
	unsigned long v;
	char *e;

	if (!isdigit((unsigned char)*s))
		return "port number expected";
	errno = 0;
	v = strtoul(s, &e, 10);
	if (errno == ERANGE || v > 65535)
		return "port out of range (1-65535)";
	if (!v)
		return "port 0 cannot be forwarded";
	*end = e;
	*port = v;
	return NULL;
}

/**
 * fwd_range() - parse PORT or PORT-PORT at the start of @s
 * @s:		text
 * @end:	first character after the range, output
 * @first:	first port, set on success
 * @last:	last port, set on success
 *
 * Return: NULL on success, else the reason
 */
static const char *fwd_range(const char *s, const char **end,
			     uint16_t *first, uint16_t *last)
{
	const char *e;

	e = fwd_port(s, end, first);
	if (e)
		return e;
	*last = *first;
	if (**end != '-')
		return NULL;
	e = fwd_port(*end + 1, end, last);
	if (e)
		return e;
	return *last < *first ? "inverted port range" : NULL;
}

/**
 * fwd_addr() - parse an address of either family, IPv6 maybe in brackets
 * @s:		text, modified (the brackets are taken off)
 * @a:		filled in, v4-mapped for IPv4
 *
 * Return: AF_INET or AF_INET6, 0 if @s is no address
 */
static int fwd_addr(char *s, struct in6_addr *a)
{
	size_t n = strlen(s);
	struct in_addr a4;
	int af;

	if (*s == '[') {
		if (n < 3 || s[n - 1] != ']')
			return 0;
		s[n - 1] = '\0';
		s++;
		af = addr_parse(s, &a4, a);
		return af == AF_INET6 ? af : 0;
	}
	af = addr_parse(s, &a4, a);
	if (af == AF_INET)
		*a = inany_from4(a4);
	return af;
}

/**
 * fwd_bind() - parse the ADDR%IF of an ADDR%IF/PORTS element
 * @r:		takes the address (r->bind) and interface (r->dev)
 * @s:		"ADDR", "ADDR%IF", "%IF", "*" or "*%IF", modified
 *
 * Return: NULL on success, else the reason
 */
static const char *fwd_bind(struct fwd_rule *r, char *s)
{
	char *pct = strchr(s, '%');
	struct in6_addr a;
	int af;

	*r->bind = *r->dev = '\0';
	if (pct) {
		*pct++ = '\0';
		if (!*pct || strlen(pct) >= sizeof(r->dev))
			return "not an interface name after '%'";
		strcpy(r->dev, pct);
	}
	if ((pct && !*s) || !strcmp(s, "*"))
		return NULL;
	af = fwd_addr(s, &a);
	if (!af)
		return "not an IPv4 or IPv6 address before '/'";
	if (af == AF_INET) {
		struct in_addr a4 = inany_to4(&a);

		inet_ntop(AF_INET, &a4, r->bind, sizeof(r->bind));
	} else {
		inet_ntop(AF_INET6, &a, r->bind, sizeof(r->bind));
	}
	return NULL;
}

/**
 * fwd_target() - parse the guest address of PORTS:ADDR or PORTS:ADDR/PORTS
 * @r:		rule, r->to_addr set on success; its bind address, if any,
 *		must be of the same family
 * @s:		the address, modified
 *
 * Return: NULL on success, else the reason
 */
static const char *fwd_target(struct fwd_rule *r, char *s)
{
	struct in_addr a4;
	struct in6_addr a;
	const char *e;
	int af;

	af = fwd_addr(s, &a);
	if (!af)
		return "not an IPv4 or IPv6 target address";
	a4 = inany_to4(&a);
	e = addr_not_unicast(af, &a4, &a);
	if (e || addr_is_loopback(af, &a4, &a))
		return e ? "target address: not a unicast address" :
			   "target address: loopback is no guest's";
	/* r->bind is in canonical form: IPv6 if it has a ':' */
	if (*r->bind && !strchr(r->bind, ':') != inany_is4(&a))
		return "bind and target addresses of different families";
	r->to_addr = a;
	return NULL;
}

/**
 * fwd_rule() - parse one element of a port spec, after its ADDR%IF/
 * @r:		rule, output; its bind address and interface already set
 * @s:		element, modified: "PORTS[:TARGET]", "~PORTS" or
 *		"all[:ADDR]", where TARGET is PORTS, ADDR or ADDR/PORTS
 * @all:	set if the element is "all[:ADDR]"
 *
 * Return: NULL on success, else the reason
 */
static const char *fwd_rule(struct fwd_rule *r, char *s, bool *all)
{
	uint16_t to_first, to_last;
	char *colon, *slash;
	const char *end, *e;

	*all = false;
	if (*s == '~') {
		r->exclude = true;
		s++;
	}
	if (!r->exclude && !strncmp(s, "all", 3) &&
	    (!s[3] || s[3] == ':')) {
		*all = true;
		return s[3] ? fwd_target(r, s + 4) : NULL;
	}

	e = fwd_range(s, &end, &r->first, &r->last);
	if (e)
		return e;
	r->to = r->first;
	if (*end != ':')
		return *end ? "unexpected characters" : NULL;
	if (r->exclude)
		return "an exclusion takes no target";

	colon = (char *)end + 1;
	slash = strrchr(colon, '/');
	if (slash) {
		*slash = '\0';
		e = fwd_target(r, colon);
		if (e)
			return e;
		end = slash + 1;
	} else if (strpbrk(colon, ".:[")) {
		/* An address, not ports: the ports are kept */
		return fwd_target(r, colon);
	} else {
		end = colon;
	}
	e = fwd_range(end, &end, &to_first, &to_last);
	if (e)
		return e;
	if (to_last - to_first != r->last - r->first)
		return "port ranges of different lengths";
	r->to = to_first;
	return *end ? "unexpected characters" : NULL;
}

/**
 * fwd_prefix() - split the ADDR%IF/ off an element, if it has one
 * @s:		element, modified
 * @bind:	takes the address and interface if there is one
 * @rest:	set to what follows the prefix, or to @s
 *
 * "5000:192.0.2.5/6000" has a slash but no prefix: text before the first
 * slash that is no address and holds a ':' is a port and its target.
 *
 * Return: NULL on success, else the reason
 */
static const char *fwd_prefix(char *s, struct fwd_rule *bind, char **rest)
{
	char *slash = strchr(s, '/'), copy[FWD_SPEC_MAX];
	struct fwd_rule r = { 0 };
	const char *e;

	*rest = s;
	if (!slash || *s == '~')
		return NULL;
	*slash = '\0';
	strcpy(copy, s);
	*slash = '/';
	e = fwd_bind(&r, copy);
	if (e && strchr(copy, ':') && isdigit((unsigned char)*copy))
		return NULL;
	if (e)
		return e;
	strcpy(bind->bind, r.bind);
	strcpy(bind->dev, r.dev);
	*rest = slash + 1;
	return NULL;
}

/**
 * fwd_same_all() - tell if two "all" elements forward alike
 * @a:		the one seen first
 * @b:		the other
 *
 * Return: true if they bind the same address and interface and go to the
 *	   same guest address
 */
static bool fwd_same_all(const struct fwd_rule *a, const struct fwd_rule *b)
{
	return !strcmp(a->bind, b->bind) && !strcmp(a->dev, b->dev) &&
	       inany_eq(&a->to_addr, &b->to_addr);
}

/**
 * fwd_rules() - parse a comma-separated list of elements, appending them
 * @spec:	forwarding spec
 * @list:	list, modified
 *
 * An ADDR%IF/ in front of an element binds it and the elements after it
 * (as passt's single ADDR%IF/ in front of the list does), until the next
 * one.
 *
 * Return: NULL on success, else the reason
 */
static const char *fwd_rules(struct fwd_spec *spec, char *list)
{
	struct fwd_rule bind = { 0 };
	bool all, included = false;
	char *elem, *next, *rest;
	const char *e;

	for (elem = list; elem; elem = next) {
		struct fwd_rule r;

		next = strchr(elem, ',');
		if (next)
			*next++ = '\0';
		if (!*elem)
			return "empty element";
		e = fwd_prefix(elem, &bind, &rest);
		if (e)
			return e;
		r = bind;
		e = fwd_rule(&r, rest, &all);
		if (e)
			return e;
		if (all) {
			if (spec->all && !fwd_same_all(&spec->all_rule, &r))
				return "a second 'all' that forwards otherwise";
			spec->all = included = true;
			spec->all_rule = r;
			continue;
		}
		if (spec->n >= CONF_MAX_FWD)
			return "too many rules";
		/* An exclusion holds for every address */
		if (r.exclude)
			*r.bind = *r.dev = '\0';
		included |= !r.exclude;
		spec->rule[spec->n++] = r;
	}
	/* Exclusions alone forward every other port: on the address given */
	if (!included && !spec->all) {
		strcpy(spec->all_rule.bind, bind.bind);
		strcpy(spec->all_rule.dev, bind.dev);
	}
	return NULL;
}

/**
 * fwdspec_parse() - parse a -t or -u port forwarding spec
 * @spec:	forwarding spec: rules are appended, "none" clears it,
 *		"all" forwards every port not excluded
 * @arg:	"none", "auto", or a comma-separated list of "PORT" or
 *		"PORT-PORT", either followed by ":PORT", ":PORT-PORT" (guest
 *		ports, same length), ":ADDR" or ":ADDR/PORT[-PORT]" (a guest
 *		address that is not the guest's own); "all" or "all:ADDR";
 *		"~PORT", "~PORT-PORT" to exclude; each optionally preceded
 *		by "ADDR%IF/".  A spec of exclusions only forwards all other
 *		ports.
 *
 * Return: 0 on success, -1 on error (reported, @spec unchanged)
 */
int fwdspec_parse(struct fwd_spec *spec, const char *arg)
{
	struct fwd_spec tmp = *spec;
	char buf[FWD_SPEC_MAX];
	const char *e;

	if (!strcmp(arg, "none")) {
		memset(spec, 0, sizeof(*spec));
		return 0;
	}
	if (!strcmp(arg, "auto")) {
		spec->follow = true;
		return 0;
	}

	if (strlen(arg) >= sizeof(buf)) {
		e = "too long";
	} else {
		strcpy(buf, arg);
		e = fwd_rules(&tmp, buf);
	}
	if (e) {
		fprintf(stderr, "netshim: invalid port spec '%s': %s\n", arg,
			e);
		return -1;
	}
	*spec = tmp;
	return 0;
}

/**
 * fwd_all() - tell if a spec forwards every port it does not exclude
 * @spec:	forwarding spec
 *
 * Return: true for "all", and for a spec made of exclusions only
 */
static bool fwd_all(const struct fwd_spec *spec)
{
	int i;

	if (spec->all)
		return true;
	for (i = 0; i < spec->n; i++) {
		if (!spec->rule[i].exclude)
			return false;
	}
	return spec->n > 0;
}

/**
 * fwdspec_find() - the rule that forwards a pod port
 * @spec:	forwarding spec
 * @port:	pod port
 *
 * Exclusions win over any rule; the first rule holding @port gives the
 * guest port, address and bind.  Ports forwarded by "all" (or by a spec of
 * exclusions only) keep their number; the pod's ephemeral ports are not
 * among them.
 *
 * Return: the rule, @spec->all_rule for "all", NULL if @port is not
 *	   forwarded
 */
const struct fwd_rule *fwdspec_find(const struct fwd_spec *spec,
				    uint16_t port)
{
	const struct fwd_rule *r;
	int i;

	if (!port)
		return NULL;
	for (i = 0; i < spec->n; i++) {
		r = &spec->rule[i];
		if (r->exclude && port >= r->first && port <= r->last)
			return NULL;
	}
	for (i = 0; i < spec->n; i++) {
		r = &spec->rule[i];
		if (!r->exclude && port >= r->first && port <= r->last)
			return r;
	}
	if (!fwd_all(spec) ||
	    (port >= spec->eph_first && port <= spec->eph_last))
		return NULL;
	return &spec->all_rule;
}

/**
 * fwdspec_to() - the guest port a rule maps a pod port to
 * @r:		rule holding @port (fwdspec_find())
 * @port:	pod port
 *
 * Return: the guest port
 */
uint16_t fwdspec_to(const struct fwd_rule *r, uint16_t port)
{
	if (r->first == 0)	/* "all": every port keeps its number */
		return port;
	return r->to + (port - r->first);
}

/**
 * fwdspec_lookup() - is a pod port forwarded to the guest, and where
 * @spec:	forwarding spec
 * @port:	pod port
 * @to:		guest port, set if forwarded (may be NULL)
 *
 * Return: true if @port is forwarded
 */
bool fwdspec_lookup(const struct fwd_spec *spec, uint16_t port,
		    uint16_t *to)
{
	const struct fwd_rule *r = fwdspec_find(spec, port);

	if (r && to)
		*to = fwdspec_to(r, port);
	return r;
}

/**
 * fwdspec_is_target() - tell if a spec forwards to a guest address
 * @spec:	forwarding spec
 * @a:		address (v4-mapped for IPv4)
 *
 * Return: true if one of its rules, or its "all", sends to @a
 */
bool fwdspec_is_target(const struct fwd_spec *spec, const struct in6_addr *a)
{
	int i;

	if (spec->all && inany_eq(&spec->all_rule.to_addr, a))
		return true;
	for (i = 0; i < spec->n; i++)
		if (!spec->rule[i].exclude &&
		    inany_eq(&spec->rule[i].to_addr, a))
			return true;
	return false;
}

/**
 * fwd_format_to_addr() - "->ADDR" for a rule with a guest address
 * @r:		rule
 * @buf:	output
 * @size:	size of @buf
 * @len:	length so far, updated
 */
static void fwd_format_to_addr(const struct fwd_rule *r, char *buf,
			       size_t size, size_t *len)
{
	char a[INET6_ADDRSTRLEN];

	if (IN6_IS_ADDR_UNSPECIFIED(&r->to_addr))
		return;
	if (inany_is4(&r->to_addr)) {
		struct in_addr a4 = inany_to4(&r->to_addr);

		inet_ntop(AF_INET, &a4, a, sizeof(a));
	} else {
		inet_ntop(AF_INET6, &r->to_addr, a, sizeof(a));
	}
	log_buf_add(buf, size, len, "->%s", a);
}

/**
 * fwdspec_format() - describe a forwarding spec for the log
 * @spec:	forwarding spec
 * @buf:	output
 * @size:	size of @buf
 */
void fwdspec_format(const struct fwd_spec *spec, char *buf, size_t size)
{
	bool all = fwd_all(spec) || spec->follow;
	const struct fwd_rule *r;
	size_t len = 0;
	int i;

	*buf = '\0';
	if (fwd_all(spec) && !spec->follow) {
		r = &spec->all_rule;
		log_buf_add(buf, size, &len, "%s%s%s%sall", r->bind,
			    *r->dev ? "%" : "", r->dev,
			    *r->bind || *r->dev ? "/" : "");
		fwd_format_to_addr(r, buf, size, &len);
	} else {
		log_buf_add(buf, size, &len, "%s", spec->follow ? "auto" :
			    spec->n ? "" : "none");
	}
	for (i = 0; i < spec->n; i++) {
		r = &spec->rule[i];
		log_buf_add(buf, size, &len, "%s%s%s%s%s%s%u", i || all ? ", " : "",
			r->exclude ? "except " : "", r->bind,
			*r->dev ? "%" : "", r->dev,
			*r->bind || *r->dev ? "/" : "", r->first);
		if (r->last != r->first)
			log_buf_add(buf, size, &len, "-%u", r->last);
		if (r->exclude)
			continue;
		fwd_format_to_addr(r, buf, size, &len);
		if (r->to == r->first)
			continue;
		log_buf_add(buf, size, &len, "%s%u",
			    IN6_IS_ADDR_UNSPECIFIED(&r->to_addr) ? "->" : "/",
			    r->to);
		if (r->last != r->first)
			log_buf_add(buf, size, &len, "-%u",
				r->to + (r->last - r->first));
	}
	if (fwd_all(spec) && spec->eph_first)
		log_buf_add(buf, size, &len, ", except ephemeral %u-%u",
			    spec->eph_first, spec->eph_last);
}
