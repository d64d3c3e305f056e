// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - forwarding specs as passt's rule tables, and back
 *
 * The control socket (ctl.c) lists netshim's forwarding as passt lists
 * its own: a table of rules per interface, each a port range on one
 * address (or any address of both families), with a target port and
 * address, best effort ("all") or following listeners ("auto").  A spec
 * of the command line becomes such a table here, ports of exclusions and
 * of earlier rules left out, as netshim forwards them; a table set at run
 * time becomes a spec again, which the lookups of a connection's guest
 * port read (fwd_guest_port()).
 *
 * netshim-ctl uses the same functions to add and delete rules of a table
 * before sending it back, as pesto does.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "fwdtable.h"
#include "inany.h"
#include "portset.h"

/**
 * fwdtable_addr() - the listening address of a rule
 * @r:		rule, its address, flags and interface set
 * @bind:	the spec's bind address, "" for any
 * @dev:	its interface, "" for any
 * @to_addr:	its target address, :: for the guest's own
 * @o:		families enabled
 *
 * Any address is both families where both are on and no target address
 * of one family restricts it, as netshim binds it (fwd_listen()).
 *
 * Return: 0 on success, -1 for an address that is none
 */
static int fwdtable_addr(struct ctl_rule *r, const char *bind,
			 const char *dev, const struct in6_addr *to_addr,
			 const struct fwdtable_opts *o)
{
	struct in_addr a4 = { INADDR_ANY };

	snprintf(r->ifname, sizeof(r->ifname), "%s", dev);
	r->flags &= ~CTL_F_DUAL;
	if (*bind) {
		if (inet_pton(AF_INET, bind, &a4) == 1) {
			r->addr = inany_from4(a4);
			return 0;
		}
		return inet_pton(AF_INET6, bind, &r->addr) == 1 ? 0 : -1;
	}
	if (!IN6_IS_ADDR_UNSPECIFIED(to_addr)) {
		r->addr = inany_is4(to_addr) ? inany_from4(a4) : in6addr_any;
	} else if (o->v4 && o->v6) {
		r->addr = in6addr_any;
		r->flags |= CTL_F_DUAL;
	} else {
		r->addr = o->v4 ? inany_from4(a4) : in6addr_any;
	}
	return 0;
}

/**
 * fwdtable_emit() - append a rule for each run of ports of a set
 * @t:		table
 * @ports:	the ports
 * @tmpl:	the rule: address, target, protocol and flags
 * @first:	first port the rule names
 * @last:	its last
 * @to:		target port of @first
 *
 * Return: 0 on success, -1 if the table is full
 */
static int fwdtable_emit(struct ctl_table *t, const struct portset *ports,
			 const struct ctl_rule *tmpl, uint16_t first,
			 uint16_t last, uint16_t to)
{
	uint32_t p = first, run;

	while (p <= last) {
		if (!portset_has(ports, (uint16_t)p)) {
			p++;
			continue;
		}
		for (run = p; run + 1 <= last &&
			      portset_has(ports, (uint16_t)(run + 1)); run++)
			;
		if (t->n >= CTL_RULES_MAX)
			return -1;
		t->rule[t->n] = *tmpl;
		t->rule[t->n].first = (uint16_t)p;
		t->rule[t->n].last = (uint16_t)run;
		t->rule[t->n].to = (uint16_t)(to + (p - first));
		t->n++;
		p = run + 1;
	}
	return 0;
}

/**
 * fwdtable_range() - put a range of ports in a set, or take it out
 * @s:		the set
 * @first:	first port
 * @last:	last port
 * @in:		put in, else take out
 */
static void fwdtable_range(struct portset *s, uint32_t first, uint32_t last,
			   bool in)
{
	uint32_t p;

	for (p = first; p <= last; p++) {
		if (in)
			portset_add(s, (uint16_t)p);
		else
			portset_del(s, (uint16_t)p);
	}
}

/**
 * fwdtable_spec_rules() - the rules a spec's ports and ranges make
 * @t:		table, appended to
 * @spec:	the spec
 * @tmpl:	protocol set
 * @o:		families, and what the spec is for
 * @excl:	ports the spec excludes
 * @covered:	ports earlier rules hold, updated
 *
 * Return: 0 on success, -1 if the table is full
 */
static int fwdtable_spec_rules(struct ctl_table *t,
			       const struct fwd_spec *spec,
			       struct ctl_rule *tmpl,
			       const struct fwdtable_opts *o,
			       const struct portset *excl,
			       struct portset *covered)
{
	static struct portset ports;
	int i;

	for (i = 0; i < spec->n; i++) {
		const struct fwd_rule *r = &spec->rule[i];
		uint32_t p;

		if (r->exclude)
			continue;
		memset(&ports, 0, sizeof(ports));
		for (p = r->first; p <= r->last; p++)
			if (!portset_has(excl, (uint16_t)p) &&
			    !portset_has(covered, (uint16_t)p))
				portset_add(&ports, (uint16_t)p);
		fwdtable_range(covered, r->first, r->last, true);
		tmpl->flags = 0;
		if (o->splice)
			fwdtable_addr(tmpl, "", "lo", &in6addr_any, o);
		else if (fwdtable_addr(tmpl, r->bind, r->dev, &r->to_addr, o))
			continue;
		tmpl->taddr = o->splice ? in6addr_any : r->to_addr;
		if (fwdtable_emit(t, &ports, tmpl, r->first, r->last, r->to))
			return -1;
	}
	return 0;
}

/**
 * fwdtable_from_spec() - a spec of the command line as passt's rules
 * @t:		table, appended to; its pif and capabilities are the
 *		caller's
 * @spec:	the spec
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @o:		families, and what the spec is for
 * @why:	set to the reason on failure
 *
 * Ports and ranges come first, in their order, each without the ports an
 * exclusion or an earlier rule holds (fwdspec_find() gives a port its
 * first rule); then "all", best effort, without the pod's ephemeral
 * ports; then "auto", following listeners, on what is left.
 *
 * Return: 0 on success, -1 if it takes more rules than a table holds
 */
int fwdtable_from_spec(struct ctl_table *t, const struct fwd_spec *spec,
		       uint8_t proto, const struct fwdtable_opts *o,
		       const char **why)
{
	static struct portset excl, covered, ports;
	struct ctl_rule tmpl = { .proto = proto };
	bool all = spec->all, excl_only = spec->n > 0;
	int i;

	memset(&excl, 0, sizeof(excl));
	memset(&covered, 0, sizeof(covered));
	*why = "more rules than a table holds (255)";
	for (i = 0; i < spec->n; i++) {
		if (spec->rule[i].exclude)
			fwdtable_range(&excl, spec->rule[i].first,
				       spec->rule[i].last, true);
		else
			excl_only = false;
	}
	/* A spec of exclusions alone forwards every other port */
	all |= excl_only;
	if (fwdtable_spec_rules(t, spec, &tmpl, o, &excl, &covered))
		return -1;

	if (all) {
		const struct fwd_rule *r = &spec->all_rule;

		memset(&ports, 0xff, sizeof(ports));
		portset_del(&ports, 0);
		if (spec->eph_first)
			fwdtable_range(&ports, spec->eph_first, spec->eph_last,
				       false);
		for (i = 0; i < PORTSET_WORDS; i++) {
			ports.w[i] &= ~(excl.w[i] | covered.w[i]);
			covered.w[i] |= ports.w[i];
		}
		tmpl.flags = CTL_F_WEAK;
		if (fwdtable_addr(&tmpl, r->bind, r->dev, &r->to_addr, o))
			return 0;
		tmpl.taddr = r->to_addr;
		if (fwdtable_emit(t, &ports, &tmpl, 1, 65535, 1))
			return -1;
	}
	if (spec->follow) {
		memset(&ports, 0xff, sizeof(ports));
		portset_del(&ports, 0);
		for (i = 0; i < PORTSET_WORDS; i++)
			ports.w[i] &= ~(covered.w[i] |
					(o->follow_vm ? excl.w[i] : 0));
		tmpl.flags = CTL_F_WEAK | CTL_F_SCAN;
		fwdtable_addr(&tmpl, "", o->splice ? "lo" : "", &in6addr_any,
			      o);
		tmpl.taddr = in6addr_any;
		if (fwdtable_emit(t, &ports, &tmpl, 1, 65535, 1))
			return -1;
	}
	*why = NULL;
	return 0;
}

/**
 * fwdtable_to_spec() - a table's rules of one protocol as a spec, for
 *			the lookups of a connection's guest port
 * @t:		the table
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @spec:	rewritten: its ports and ranges, no "all", no "auto" (the
 *		ephemeral range is kept)
 *
 * Return: 0 on success, -1 if the rules do not fit a spec
 */
int fwdtable_to_spec(const struct ctl_table *t, uint8_t proto,
		     struct fwd_spec *spec)
{
	uint16_t eph_first = spec->eph_first, eph_last = spec->eph_last;
	unsigned int i;

	memset(spec, 0, sizeof(*spec));
	spec->eph_first = eph_first;
	spec->eph_last = eph_last;
	for (i = 0; i < t->n; i++) {
		const struct ctl_rule *r = &t->rule[i];
		struct fwd_rule *s;

		if (r->proto != proto)
			continue;
		if (spec->n >= CONF_MAX_FWD)
			return -1;
		s = &spec->rule[spec->n++];
		s->first = r->first;
		s->last = r->last;
		s->to = r->to;
		s->to_addr = r->taddr;
		snprintf(s->dev, sizeof(s->dev), "%s", r->ifname);
		if (r->flags & CTL_F_DUAL) {
			*s->bind = '\0';
		} else if (inany_is4(&r->addr)) {
			struct in_addr a4 = inany_to4(&r->addr);

			inet_ntop(AF_INET, &a4, s->bind, sizeof(s->bind));
		} else {
			inet_ntop(AF_INET6, &r->addr, s->bind, sizeof(s->bind));
		}
	}
	return 0;
}

/**
 * fwdtable_rule_eq() - whether two rules are the same rule
 * @a:		one
 * @b:		the other
 *
 * Return: true if every field is equal
 */
bool fwdtable_rule_eq(const struct ctl_rule *a, const struct ctl_rule *b)
{
	return inany_eq(&a->addr, &b->addr) && inany_eq(&a->taddr, &b->taddr) &&
	       !strncmp(a->ifname, b->ifname, sizeof(a->ifname)) &&
	       a->first == b->first && a->last == b->last && a->to == b->to &&
	       a->proto == b->proto && a->flags == b->flags;
}

/**
 * fwdtable_add() - append a rule to a table, as pesto -A does
 * @t:		the table
 * @r:		the rule
 * @why:	set to the reason on failure
 * @size:	its size
 *
 * Return: 0 on success, -1 if it conflicts with a rule of the table, or
 *	   the table is full
 */
int fwdtable_add(struct ctl_table *t, const struct ctl_rule *r, char *why,
		 size_t size)
{
	char a[CTL_RULE_STRLEN], b[CTL_RULE_STRLEN];
	unsigned int i;

	for (i = 0; i < t->n; i++) {
		if (!ctlwire_rules_conflict(r, &t->rule[i]))
			continue;
		snprintf(why, size, "%s conflicts with %s",
			 ctlwire_rule_fmt(r, a, sizeof(a)),
			 ctlwire_rule_fmt(&t->rule[i], b, sizeof(b)));
		return -1;
	}
	if (t->n >= CTL_RULES_MAX) {
		snprintf(why, size, "the table holds %d rules already",
			 CTL_RULES_MAX);
		return -1;
	}
	t->rule[t->n++] = *r;
	return 0;
}

/**
 * fwdtable_del() - take a rule out of a table, as pesto -D does
 * @t:		the table
 * @r:		the rule, as it is in the table
 * @why:	set to the reason on failure
 * @size:	its size
 *
 * Return: 0 on success, -1 if no rule of the table is @r (one that only
 *	   overlaps it is not taken)
 */
int fwdtable_del(struct ctl_table *t, const struct ctl_rule *r, char *why,
		 size_t size)
{
	char a[CTL_RULE_STRLEN], b[CTL_RULE_STRLEN];
	unsigned int i;

	for (i = 0; i < t->n; i++) {
		if (fwdtable_rule_eq(r, &t->rule[i]))
			break;
		if (!ctlwire_rules_conflict(r, &t->rule[i]))
			continue;
		snprintf(why, size, "%s overlaps %s without being it: not "
			 "deleted", ctlwire_rule_fmt(r, a, sizeof(a)),
			 ctlwire_rule_fmt(&t->rule[i], b, sizeof(b)));
		return -1;
	}
	if (i == t->n) {
		snprintf(why, size, "no rule %s to delete",
			 ctlwire_rule_fmt(r, a, sizeof(a)));
		return -1;
	}
	memmove(&t->rule[i], &t->rule[i + 1],
		(t->n - i - 1) * sizeof(t->rule[0]));
	t->n--;
	return 0;
}
