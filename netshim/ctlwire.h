/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - the control socket's wire format: passt's pesto protocol and
 *	     netshim's own requests
 */
#ifndef NETSHIM_CTLWIRE_H
#define NETSHIM_CTLWIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>

/* What pesto (passt 2026) checks in the server's greeting */
#define CTL_MAGIC		"basil:s"	/* 7 characters and a NUL */
#define CTL_VERSION		2
#define CTL_PIF_NAME_SIZE	128
#define CTL_IFNAMSIZ		16

/* Interfaces ("pifs") with rule tables, by passt's numbers and names */
#define CTL_PIF_NONE		0
#define CTL_PIF_HOST		1	/* -t, -u: the pod's ports */
#define CTL_PIF_SPLICE		3	/* -T, -U: the namespace's loopback */
#define CTL_PIFS_MAX		2

/* Rules per table: passt's limit, a rule's index in 8 bits */
#define CTL_RULES_MAX		255

/* Capabilities of a table, as passt's FWD_CAP_* */
#define CTL_CAP_IPV4		(1U << 0)
#define CTL_CAP_IPV6		(1U << 1)
#define CTL_CAP_TCP		(1U << 2)
#define CTL_CAP_UDP		(1U << 3)
#define CTL_CAP_SCAN		(1U << 4)	/* "auto" */
#define CTL_CAP_IFNAME		(1U << 5)	/* ADDR%IF/ */

/* Flags of a rule, as passt's */
#define CTL_F_DUAL		(1U << 0)	/* any address, both families */
#define CTL_F_WEAK		(1U << 1)	/* ports that cannot be bound
						 * are skipped, not an error */
#define CTL_F_SCAN		(1U << 2)	/* only ports the other side
						 * listens on ("auto") */

/* Sizes on the wire */
#define CTL_HELLO_LEN		20
#define CTL_PIF_INFO_LEN	(1 + CTL_PIF_NAME_SIZE + 4 + 4)
#define CTL_RULE_LEN		56
/* A table: its pif, its rule count, its rules */
#define CTL_TABLE_LEN_MAX	(1 + 4 + CTL_RULES_MAX * CTL_RULE_LEN)
/* Tables, then the closing pif number */
#define CTL_UPDATE_LEN_MAX	(CTL_PIFS_MAX * CTL_TABLE_LEN_MAX + 1)
/* The greeting and the listing of every table */
#define CTL_LISTING_LEN_MAX	(CTL_HELLO_LEN + CTL_PIFS_MAX *		\
				 (CTL_PIF_INFO_LEN + CTL_RULES_MAX *	\
				  CTL_RULE_LEN) + 1)

/* netshim's own requests: one line, "NSCTL1 VERB [ARGUMENT]\n" */
#define CTL_TEXT_PREFIX		"NSCTL1 "
#define CTL_TEXT_MAX		256

/**
 * struct ctl_rule - one forwarding rule, as passt's struct fwd_rule
 * @addr:	address to listen on, v4-mapped for IPv4; :: with CTL_F_DUAL
 * @taddr:	guest address connections go to, :: for the guest's own
 * @ifname:	interface to bind to, "" for any
 * @first:	first port
 * @last:	last port
 * @to:		target port of @first; port n goes to @to + (n - @first)
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @flags:	CTL_F_*
 */
struct ctl_rule {
	struct in6_addr addr;
	struct in6_addr taddr;
	char ifname[CTL_IFNAMSIZ];
	uint16_t first, last, to;
	uint8_t proto;
	uint8_t flags;
};

/**
 * struct ctl_table - the rules of one interface
 * @pif:	CTL_PIF_HOST or CTL_PIF_SPLICE
 * @caps:	CTL_CAP_* of the interface
 * @n:		rules
 * @rule:	the rules, in the order they were given
 */
struct ctl_table {
	uint8_t pif;
	uint32_t caps;
	unsigned int n;
	struct ctl_rule rule[CTL_RULES_MAX];
};

/**
 * enum ctl_req_kind - what a client's bytes so far make
 * @CTL_REQ_MORE:	not a whole request yet
 * @CTL_REQ_RULES:	new rule tables (pesto's update)
 * @CTL_REQ_TEXT:	a request of netshim's own
 * @CTL_REQ_BAD:	malformed: the reason says why
 */
enum ctl_req_kind {
	CTL_REQ_MORE = 0,
	CTL_REQ_RULES,
	CTL_REQ_TEXT,
	CTL_REQ_BAD,
};

/**
 * struct ctl_req - a request, parsed
 * @kind:	what it is
 * @len:	bytes of input it took
 * @n:		CTL_REQ_RULES: tables
 * @table:	CTL_REQ_RULES: the tables, with their pif and rules (no
 *		capabilities: those are the server's)
 * @verb:	CTL_REQ_TEXT: the verb, NUL-terminated
 * @arg:	CTL_REQ_TEXT: what follows it, "" for nothing
 * @why:	CTL_REQ_BAD: the reason
 */
struct ctl_req {
	enum ctl_req_kind kind;
	size_t len;
	unsigned int n;
	struct ctl_table table[CTL_PIFS_MAX];
	char verb[32];
	char arg[CTL_TEXT_MAX];
	const char *why;
};

const char *ctlwire_pif_name(uint8_t pif);
size_t ctlwire_hello(uint8_t *buf);
size_t ctlwire_rule_put(uint8_t *buf, const struct ctl_rule *r);
void ctlwire_rule_get(const uint8_t *buf, struct ctl_rule *r);
size_t ctlwire_listing_put(uint8_t *buf, size_t size,
			   const struct ctl_table *t);
size_t ctlwire_update_put(uint8_t *buf, size_t size,
			  const struct ctl_table *t);
void ctlwire_parse(const uint8_t *buf, size_t len, struct ctl_req *req);
int ctlwire_listing_parse(const uint8_t *buf, size_t len,
			  struct ctl_table *t, unsigned int max,
			  unsigned int *n, size_t *used, const char **why);

#define CTL_RULE_STRLEN		160
const char *ctlwire_rule_fmt(const struct ctl_rule *r, char *buf,
			     size_t size);
const char *ctlwire_rule_check(const struct ctl_rule *r, uint32_t caps);
bool ctlwire_rules_conflict(const struct ctl_rule *a,
			    const struct ctl_rule *b);
int ctlwire_table_check(const struct ctl_table *t, char *why, size_t size);

#endif /* NETSHIM_CTLWIRE_H */
