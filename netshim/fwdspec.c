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
 * fwd_bind() - parse and store the ADDR%IF of an ADDR%IF/PORTS rule
 * @r:		rule, r->bind and r->dev set on success
 * @s:		"ADDR", "ADDR%IF" or "%IF", modified
 *
 * Return: NULL on success, else the reason
 */
static const char *fwd_bind(struct fwd_rule *r, char *s)
{
	char *pct = strchr(s, '%');
	struct in6_addr a6;
	struct in_addr a4;
	int af;

	if (pct) {
		*pct++ = '\0';
		if (!*pct || strlen(pct) >= sizeof(r->dev))
			return "not an interface name after '%'";
		strcpy(r->dev, pct);
		if (!*s)
			return NULL;
	}
	af = addr_parse(s, &a4, &a6);
	if (!af)
		return "not an IPv4 or IPv6 address before '/'";
	if (af == AF_INET)
		inet_ntop(AF_INET, &a4, r->bind, sizeof(r->bind));
	else
		inet_ntop(AF_INET6, &a6, r->bind, sizeof(r->bind));
	return NULL;
}

/**
 * fwd_rule() - parse one element of a port spec
 * @r:		rule, output
 * @s:		element, modified: "[ADDR/]PORTS[:PORTS]" or "~PORTS"
 *
 * Return: NULL on success, else the reason
 */
static const char *fwd_rule(struct fwd_rule *r, char *s)
{
	uint16_t to_first, to_last;
	const char *end, *e;
	char *slash;

	memset(r, 0, sizeof(*r));
	if (*s == '~') {
		r->exclude = true;
		s++;
	}
	slash = strrchr(s, '/');
	if (slash) {
		if (r->exclude)
			return "an exclusion takes no address";
		*slash = '\0';
		e = fwd_bind(r, s);
		if (e)
			return e;
		s = slash + 1;
	}

	e = fwd_range(s, &end, &r->first, &r->last);
	if (e)
		return e;
	r->to = r->first;
	if (*end == ':') {
		if (r->exclude)
			return "an exclusion takes no target port";
		e = fwd_range(end + 1, &end, &to_first, &to_last);
		if (e)
			return e;
		if (to_last - to_first != r->last - r->first)
			return "port ranges of different lengths";
		r->to = to_first;
	}
	return *end ? "unexpected characters" : NULL;
}

/**
 * fwd_rules() - parse a comma-separated list of rules, appending them
 * @spec:	forwarding spec
 * @list:	list, modified
 *
 * Return: NULL on success, else the reason
 */
static const char *fwd_rules(struct fwd_spec *spec, char *list)
{
	char *elem, *next;
	const char *e;

	for (elem = list; elem; elem = next) {
		next = strchr(elem, ',');
		if (next)
			*next++ = '\0';
		if (!*elem)
			return "empty element";
		if (spec->n >= CONF_MAX_FWD)
			return "too many rules";
		e = fwd_rule(&spec->rule[spec->n], elem);
		if (e)
			return e;
		spec->n++;
	}
	return NULL;
}

/**
 * fwdspec_parse() - parse a -t or -u port forwarding spec
 * @spec:	forwarding spec: rules are appended, "none" clears it,
 *		"all" forwards every port not excluded
 * @arg:	"none", "all", or a comma-separated list of "PORT",
 *		"PORT-PORT", either followed by ":PORT" or ":PORT-PORT"
 *		(guest ports, same length), optionally preceded by "ADDR/";
 *		or "~PORT", "~PORT-PORT" to exclude.  A spec of exclusions
 *		only forwards all other ports.
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
	if (!strcmp(arg, "all")) {
		spec->all = true;
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
 * fwdspec_lookup() - is a pod port forwarded to the guest, and where
 * @spec:	forwarding spec
 * @port:	pod port
 * @to:		guest port, set if forwarded (may be NULL)
 *
 * Exclusions win over any rule; the first rule holding @port gives the
 * guest port.  Ports forwarded by "all" (or by a spec of exclusions only)
 * keep their number; the pod's ephemeral ports are not among them.
 *
 * Return: true if @port is forwarded
 */
bool fwdspec_lookup(const struct fwd_spec *spec, uint16_t port,
		    uint16_t *to)
{
	const struct fwd_rule *r;
	int i;

	if (!port)
		return false;
	for (i = 0; i < spec->n; i++) {
		r = &spec->rule[i];
		if (r->exclude && port >= r->first && port <= r->last)
			return false;
	}
	for (i = 0; i < spec->n; i++) {
		r = &spec->rule[i];
		if (!r->exclude && port >= r->first && port <= r->last) {
			if (to)
				*to = r->to + (port - r->first);
			return true;
		}
	}
	if (!fwd_all(spec) ||
	    (port >= spec->eph_first && port <= spec->eph_last))
		return false;
	if (to)
		*to = port;
	return true;
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
	log_buf_add(buf, size, &len, "%s", spec->follow ? "auto" :
		all ? "all" : spec->n ? "" : "none");
	for (i = 0; i < spec->n; i++) {
		r = &spec->rule[i];
		log_buf_add(buf, size, &len, "%s%s%s%s%s%s%u", i || all ? ", " : "",
			r->exclude ? "except " : "", r->bind,
			*r->dev ? "%" : "", r->dev,
			*r->bind || *r->dev ? "/" : "", r->first);
		if (r->last != r->first)
			log_buf_add(buf, size, &len, "-%u", r->last);
		if (r->exclude || r->to == r->first)
			continue;
		log_buf_add(buf, size, &len, "->%u", r->to);
		if (r->last != r->first)
			log_buf_add(buf, size, &len, "-%u",
				r->to + (r->last - r->first));
	}
	if (fwd_all(spec) && spec->eph_first)
		log_buf_add(buf, size, &len, ", except ephemeral %u-%u",
			    spec->eph_first, spec->eph_last);
}
