// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - forwarding rules changed at run time (-c, pesto)
 *
 * The control socket (ctl.c) lists the forwarding as passt's rule tables
 * (fwdtable.c) and takes new tables whole, as pesto sends them.  Here a
 * new table is checked, then made true without touching what it did not
 * change:
 * - a socket the new rules still want (same protocol, address, interface
 *   and port) stays open, its target port and address updated in place;
 *   sockets no rule wants any more are closed, then the missing ones
 *   opened;
 * - TCP ports on any address go through the sk_lookup program where it
 *   is loaded (bpf/sk_lookup.c): a rule there changes one bit of its
 *   memory-mapped port set per port, and no socket at all;
 * - rules that follow listeners ("auto-scan") change the ports fwd_auto.c
 *   follows; ports it follows and still may keep their sockets.
 *
 * The sockets stay where start-up put them (tcp/, udp/, fwd_ns.c: their
 * epoll references, a migration's lookup of a UDP listener), in arrays
 * given room here, at start-up, for every port of both families.  The
 * scratch of a change (the sockets of each port, the flows to end) is
 * sized then too: the loop allocates nothing.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include "ctl_fwd.h"
#include "fwd_auto.h"
#include "fwd_ns.h"
#include "bpf/bpf.h"
#include "bpf/sk_lookup.h"
#include "net/flow.h"
#include "net/fwd.h"
#include "net/podwatch.h"
#include "net/portwatch.h"
#include "netshim/fwdtable.h"
#include "netshim/inany.h"
#include "netshim/log.h"
#include "netshim/nssock.h"
#include "tcp/tcp.h"
#include "udp/splice.h"
#include "udp/udp.h"

/* Sockets a pool may gain at run time: every port, both families */
#define CTL_FWD_RESERVE		(2 * 65535)
/* Backlog of a listener taking every forwarded port (sk_lookup) */
#define CTL_FWD_LOOKUP_BACKLOG	4096

enum { POOL_TCP, POOL_UDP, POOL_TCP_NS, POOL_UDP_NS, POOLS };

/**
 * struct ctl_fwd_key - what a socket is bound to
 * @bind:	address, v4-mapped for IPv4
 * @dev:	interface, "" for any
 * @port:	port, 0 for a socket no rule can want
 * @dual:	an IPv6 socket that takes both families (bound to no address)
 * @mark:	a change found a rule wanting it
 */
struct ctl_fwd_key {
	struct in6_addr bind;
	char dev[IF_NAMESIZE];
	uint16_t port;
	bool dual;
	bool mark;
};

/**
 * struct ctl_pool - the sockets of one kind, where their room keeps them
 * @on:		the pool exists
 * @type:	SOCK_STREAM or SOCK_DGRAM
 * @in_ns:	-T, -U: on the namespace's loopback, made by its helper
 * @ref:	epoll reference type: the index is the socket's in @lst
 * @lst:	the array's pointer, in its room
 * @n:		its count's pointer
 * @cap:	room in the array
 * @key:	what each socket is bound to, beside @lst
 * @next:	next socket of the same port, during a change
 */
struct ctl_pool {
	bool on;
	int type;
	bool in_ns;
	enum epref_type ref;
	struct fwd_listener **lst;
	uint32_t *n;
	uint32_t cap;
	struct ctl_fwd_key *key;
	int32_t *next;
};

/**
 * struct ctl_fwd - the tables, the pools, a change's scratch
 * @ntab:	tables
 * @tab:	HOST, then SPLICE in namespace mode
 * @pool:	TCP, UDP, and in namespace mode -T's and -U's
 * @head:	first socket of each port during a change, -1 for none
 * @lookup:	ports the sk_lookup program forwards
 * @scan:	scratch: ports a table follows
 * @drop:	sockets whose inbound UDP flows end, during a change
 * @drop_bits:	bits of @drop
 * @fd_budget:	descriptors best-effort rules may reach: half the limit
 * @budget_logged: best-effort ports were left out for it, said once
 * @errors:	sockets a change could not open
 * @err:	why the first could not
 * @unserved:	rules of the table being changed that got no socket at all
 *		and are not best effort: taken out of it
 */
struct ctl_fwd {
	unsigned int ntab;
	struct ctl_table tab[CTL_PIFS_MAX];
	struct ctl_pool pool[POOLS];
	int32_t head[65536];
	struct portset lookup;
	struct portset scan;
	uint64_t *drop;
	uint32_t drop_bits;
	unsigned int fd_budget;
	bool budget_logged;
	unsigned int errors;
	char err[256];
	bool unserved[CTL_RULES_MAX];
};

/**
 * ctl_fwd_key_of() - what a socket opened at start-up is bound to
 * @fd:		the socket
 * @k:		filled in; port 0 if it cannot be told
 */
static void ctl_fwd_key_of(int fd, struct ctl_fwd_key *k)
{
	struct sockaddr_storage sa;
	socklen_t sl = sizeof(sa), dl = sizeof(k->dev);

	memset(k, 0, sizeof(*k));
	if (getsockname(fd, (struct sockaddr *)&sa, &sl))
		return;
	inany_from_sockaddr(&sa, &k->bind, &k->port);
	if (getsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, k->dev, &dl))
		*k->dev = '\0';
	k->dev[sizeof(k->dev) - 1] = '\0';
}

/**
 * ctl_fwd_pool_init() - give a room's array of sockets room to grow
 * @p:		the pool
 * @type:	SOCK_STREAM or SOCK_DGRAM
 * @in_ns:	the namespace's loopback (-T, -U)
 * @ref:	its epoll reference type
 * @lst:	the array's pointer, from its room
 * @n:		its count's
 *
 * Return: 0 on success, -1 if memory is short
 */
static int ctl_fwd_pool_init(struct ctl_pool *p, int type, bool in_ns,
			     enum epref_type ref, struct fwd_listener **lst,
			     uint32_t *n)
{
	struct fwd_listener *big;
	uint32_t i;

	p->cap = *n + CTL_FWD_RESERVE;
	/* Zero pages until used: the room is there, not the memory */
	big = calloc(p->cap, sizeof(*big));
	p->key = calloc(p->cap, sizeof(*p->key));
	p->next = calloc(p->cap, sizeof(*p->next));
	if (!big || !p->key || !p->next) {
		free(big);
		return -1;
	}
	if (*n)
		memcpy(big, *lst, *n * sizeof(*big));
	free(*lst);
	*lst = big;
	for (i = 0; i < *n; i++)
		if (big[i].fd >= 0 && !big[i].any_port) {
			ctl_fwd_key_of(big[i].fd, &p->key[i]);
			p->key[i].dual = big[i].dual;
		}
	p->on = true;
	p->type = type;
	p->in_ns = in_ns;
	p->ref = ref;
	p->lst = lst;
	p->n = n;
	return 0;
}

/**
 * ctl_fwd_caps() - what a table's rules may ask of netshim
 * @c:		execution context
 * @splice:	the namespace's loopback table (SPLICE), else the pod's
 *
 * Return: CTL_CAP_* bits
 */
static uint32_t ctl_fwd_caps(const struct ctx *c, bool splice)
{
	uint32_t caps = CTL_CAP_IFNAME;

	if (c->conf.v4)
		caps |= CTL_CAP_IPV4;
	if (c->conf.v6)
		caps |= CTL_CAP_IPV6;
	if (!c->conf.no_tcp)
		caps |= CTL_CAP_TCP;
	if (!c->conf.no_udp)
		caps |= CTL_CAP_UDP;
	/* For a VM, "auto" is every port no pod process holds, through the
	 * sk_lookup program: TCP only, and only with the program
	 */
	if (conf_ns_mode(&c->conf) || (!splice && c->sk_lookup))
		caps |= CTL_CAP_SCAN;
	return caps;
}

/**
 * ctl_fwd_tables_init() - the tables of the command line's specs
 * @c:		execution context
 * @f:		state
 *
 * Return: 0 on success, -1 if a spec takes more rules than a table holds
 */
static int ctl_fwd_tables_init(struct ctx *c, struct ctl_fwd *f)
{
	struct fwdtable_opts o = { .v4 = c->conf.v4, .v6 = c->conf.v6,
				   .follow_vm = !conf_ns_mode(&c->conf) };
	const struct conf *cf = &c->conf;
	const char *why = NULL;
	struct ctl_table *t;

	t = &f->tab[f->ntab++];
	t->pif = CTL_PIF_HOST;
	t->caps = ctl_fwd_caps(c, false);
	if (fwdtable_from_spec(t, &cf->tcp_fwd, IPPROTO_TCP, &o, &why) ||
	    fwdtable_from_spec(t, &cf->udp_fwd, IPPROTO_UDP, &o, &why))
		goto fail;
	if (!conf_ns_mode(cf))
		return 0;
	o.splice = true;
	t = &f->tab[f->ntab++];
	t->pif = CTL_PIF_SPLICE;
	t->caps = ctl_fwd_caps(c, true);
	if (fwdtable_from_spec(t, &cf->tcp_ns_fwd, IPPROTO_TCP, &o, &why) ||
	    fwdtable_from_spec(t, &cf->udp_ns_fwd, IPPROTO_UDP, &o, &why))
		goto fail;
	return 0;
fail:
	err("-c: the forwarding of the command line as pesto's tables: %s",
	    why);
	return -1;
}

/**
 * ctl_fwd_lookup_start() - load the sk_lookup program with no port yet,
 *			    for the ranges rules may bring at run time
 * @c:		execution context, in the pod's namespace, privileged
 * @p:		the TCP pool, which gets the program's two sockets
 *
 * Where the program cannot be loaded, rules keep a socket per port, as
 * with --bpf off: said once.
 */
static void ctl_fwd_lookup_start(struct ctx *c, struct ctl_pool *p)
{
	int fds[2] = { -1, -1 }, v6, ret = -EINVAL;
	struct portset none = { { 0 } };
	uint32_t first = *p->n;
	char why[256];

	for (v6 = 0; v6 <= 1; v6++) {
		struct fwd_listener *l = &(*p->lst)[*p->n];
		struct in6_addr a = in6addr_loopback;

		if (!(v6 ? c->conf.v6 : c->conf.v4))
			continue;
		if (!v6)
			a = inany_from4((struct in_addr){ htonl(INADDR_LOOPBACK) });
		if (fwd_open_one(c, SOCK_STREAM, p->ref, &a, "", 0, l, *p->n) ||
		    listen(l->fd, CTL_FWD_LOOKUP_BACKLOG)) {
			ret = -errno;
			goto fail;
		}
		l->any_port = true;
		fds[v6] = l->fd;
		(*p->n)++;
	}
	ret = fwd_lookup_start(c, &none, fds[0], fds[1]);
	if (!ret) {
		debug("-c: sk_lookup loaded for TCP ranges given at run time");
		return;
	}
fail:
	while (*p->n > first) {
		struct fwd_listener *l = &(*p->lst)[--(*p->n)];

		if (l->fd < 0)
			continue;
		epoll_ctl(c->epfd, EPOLL_CTL_DEL, l->fd, NULL);
		podwatch_disown(c, l->fd);
		close(l->fd);
		l->fd = -1;
	}
	info("-c: the sk_lookup program cannot be loaded (%s): TCP ranges "
	     "given at run time take a socket per port",
	     bpf_why(ret, why, sizeof(why)));
}

/**
 * ctl_fwd_init() - make room for rules given at run time, list the
 *		    command line's
 * @c:		execution context, every forwarding socket of the command
 *		line open, before the sandbox
 *
 * Return: 0 on success or without -c, -1 on failure (reported)
 */
int ctl_fwd_init(struct ctx *c)
{
	struct fwd_listener **lst;
	struct ctl_fwd *f;
	struct rlimit rl;
	uint32_t *n, port;

	if (!*c->conf.ctl_path)
		return 0;
	f = calloc(1, sizeof(*f));
	if (!f)
		goto nomem;
	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur / 2 > INT_MAX)
		f->fd_budget = INT_MAX;
	else
		f->fd_budget = (unsigned int)(rl.rlim_cur / 2);
	f->drop_bits = f->fd_budget > (1U << 23) ? (1U << 24) :
		       f->fd_budget * 2 + 64;
	f->drop = calloc(f->drop_bits / 64 + 1, sizeof(*f->drop));
	if (!f->drop)
		goto nomem;

	tcp_listener_pool(c, &lst, &n);
	if (ctl_fwd_pool_init(&f->pool[POOL_TCP], SOCK_STREAM, false,
			      EPREF_TCP_LISTEN, lst, n))
		goto nomem;
	udp_listener_pool(c, &lst, &n);
	if (ctl_fwd_pool_init(&f->pool[POOL_UDP], SOCK_DGRAM, false,
			      EPREF_UDP_LISTEN, lst, n))
		goto nomem;
	if (conf_ns_mode(&c->conf)) {
		fwd_ns_listener_pool(c, false, &lst, &n);
		if (ctl_fwd_pool_init(&f->pool[POOL_TCP_NS], SOCK_STREAM,
				      true, EPREF_TCP_NS, lst, n))
			goto nomem;
		fwd_ns_listener_pool(c, true, &lst, &n);
		if (ctl_fwd_pool_init(&f->pool[POOL_UDP_NS], SOCK_DGRAM,
				      true, EPREF_UDP_NS, lst, n))
			goto nomem;
	}

	if (c->sk_lookup) {
		for (port = 1; port <= 65535; port++)
			if (fwd_port_lookup(c, &c->conf.tcp_fwd, (uint16_t)port,
					    NULL))
				portset_add(&f->lookup, (uint16_t)port);
	} else if (!c->conf.no_tcp && bpf_wanted(&c->conf)) {
		ctl_fwd_lookup_start(c, &f->pool[POOL_TCP]);
	}
	if (ctl_fwd_tables_init(c, f))
		return -1;
	c->ctl_fwd = f;
	return 0;
nomem:
	err("-c: out of memory for the forwarding changed at run time");
	return -1;
}

/**
 * ctl_fwd_tables() - the rules as they are now
 * @c:		execution context
 * @n:		set to the number of tables
 *
 * Return: the tables, NULL without -c
 */
const struct ctl_table *ctl_fwd_tables(const struct ctx *c, unsigned int *n)
{
	*n = c->ctl_fwd ? c->ctl_fwd->ntab : 0;
	return c->ctl_fwd ? c->ctl_fwd->tab : NULL;
}

/**
 * ctl_fwd_any() - whether a rule listens on any address
 * @r:		the rule
 *
 * Return: true for both families, 0.0.0.0 or ::
 */
static bool ctl_fwd_any(const struct ctl_rule *r)
{
	if (r->flags & CTL_F_DUAL)
		return true;
	if (inany_is4(&r->addr))
		return !inany_to4(&r->addr).s_addr;
	return IN6_IS_ADDR_UNSPECIFIED(&r->addr);
}

/**
 * ctl_fwd_rule_why() - what netshim cannot do of a rule passt could
 * @c:		execution context
 * @pif:	the rule's table
 * @r:		the rule, valid for passt (ctlwire_rule_check())
 *
 * Return: NULL if netshim serves it, else the reason
 */
static const char *ctl_fwd_rule_why(const struct ctx *c, uint8_t pif,
				    const struct ctl_rule *r)
{
	bool scan = r->flags & CTL_F_SCAN;

	if (scan && r->to != r->first)
		return "auto forwards each port to the same port";
	if (pif == CTL_PIF_SPLICE) {
		struct in_addr lo4 = { htonl(INADDR_LOOPBACK) };
		struct in6_addr l4 = inany_from4(lo4);

		if (!IN6_IS_ADDR_UNSPECIFIED(&r->taddr))
			return "-T and -U forward to the pod's loopback: no "
			       "target address";
		if (ctl_fwd_any(r) && !strcmp(r->ifname, "lo"))
			return NULL;
		if ((inany_eq(&r->addr, &l4) ||
		     inany_eq(&r->addr, &in6addr_loopback)) &&
		    (!*r->ifname || !strcmp(r->ifname, "lo")))
			return NULL;
		return "-T and -U listen on the namespace's loopback only";
	}
	if (!scan)
		return NULL;
	if (!ctl_fwd_any(r) || *r->ifname ||
	    !IN6_IS_ADDR_UNSPECIFIED(&r->taddr))
		return "auto listens on any address, with no interface or "
		       "target address";
	if (!conf_ns_mode(&c->conf) && r->proto != IPPROTO_TCP)
		return "auto for a VM is TCP's only (the sk_lookup program)";
	return NULL;
}

/**
 * ctl_fwd_check() - whether netshim can serve new tables
 * @c:		execution context
 * @t:		the tables, as a client sent them: each gets the
 *		capabilities of netshim's table of its interface
 * @n:		how many
 * @why:	set to the reason if not
 * @size:	its size
 *
 * Return: 0 if it can, -1 if not
 */
int ctl_fwd_check(const struct ctx *c, struct ctl_table *t, unsigned int n,
		  char *why, size_t size)
{
	const struct ctl_fwd *f = c->ctl_fwd;
	char r[CTL_RULE_STRLEN];
	unsigned int i, j, k;
	const char *e;

	for (i = 0; i < n; i++) {
		for (j = 0; j < f->ntab && f->tab[j].pif != t[i].pif; j++)
			;
		if (j == f->ntab) {
			snprintf(why, size, "no interface %u here%s", t[i].pif,
				 t[i].pif == CTL_PIF_SPLICE ?
				 " (SPLICE, -T and -U, is namespace mode's)" :
				 "");
			return -1;
		}
		t[i].caps = f->tab[j].caps;
		if (ctlwire_table_check(&t[i], why, size))
			return -1;
		for (k = 0; k < t[i].n; k++) {
			e = ctl_fwd_rule_why(c, t[i].pif, &t[i].rule[k]);
			if (!e)
				continue;
			snprintf(why, size, "%s: %s", ctlwire_rule_fmt(
				 &t[i].rule[k], r, sizeof(r)), e);
			return -1;
		}
	}
	return 0;
}

/**
 * ctl_fwd_by_lookup() - whether a TCP rule goes through sk_lookup
 * @c:		execution context
 * @f:		state: the ports the program forwards now
 * @r:		the rule
 *
 * Ranges, best-effort and "auto" rules on any address of every family on
 * do; a port named alone keeps a socket of its own, whose bind failure
 * says that the port is taken, unless the program forwards it already.
 *
 * Return: true if the program takes its ports
 */
static bool ctl_fwd_by_lookup(const struct ctx *c, const struct ctl_fwd *f,
			      const struct ctl_rule *r)
{
	bool every = !(c->conf.v4 && c->conf.v6) || (r->flags & CTL_F_DUAL);

	if (!c->sk_lookup || r->proto != IPPROTO_TCP || !ctl_fwd_any(r) ||
	    !every || *r->ifname)
		return false;
	if (r->flags & CTL_F_SCAN)
		return !conf_ns_mode(&c->conf);
	if (r->first != r->last || (r->flags & CTL_F_WEAK))
		return true;
	return portset_has(&f->lookup, r->first);
}

/**
 * ctl_fwd_by_socket() - whether a rule's ports get sockets of a pool
 * @c:		execution context
 * @f:		state
 * @r:		the rule
 * @proto:	the pool's protocol
 *
 * Return: true unless another protocol's, the program's or fwd_auto.c's
 */
static bool ctl_fwd_by_socket(const struct ctx *c, const struct ctl_fwd *f,
			      const struct ctl_rule *r, uint8_t proto)
{
	if (r->proto != proto || ctl_fwd_by_lookup(c, f, r))
		return false;
	return !(r->flags & CTL_F_SCAN);
}

/**
 * ctl_fwd_want() - the socket a rule wants for a port in one family
 * @c:		execution context
 * @r:		the rule
 * @splice:	of the SPLICE table: the namespace's loopback
 * @v6:		the family
 * @port:	the port
 * @k:		filled in: for a rule of both families with the pod's own
 *		target where the pod has both, the IPv6 socket takes both
 *		(@k->dual), and no IPv4 one is wanted
 *
 * Return: true if the rule wants a socket of that family
 */
static bool ctl_fwd_want(const struct ctx *c, const struct ctl_rule *r,
			 bool splice, bool v6, uint16_t port,
			 struct ctl_fwd_key *k)
{
	struct in_addr any4 = { INADDR_ANY }, lo4 = { htonl(INADDR_LOOPBACK) };

	bool dual = !splice && (r->flags & CTL_F_DUAL) &&
		    IN6_IS_ADDR_UNSPECIFIED(&r->taddr) &&
		    c->conf.v4 && c->conf.v6;

	if (!(v6 ? c->conf.v6 : c->conf.v4))
		return false;
	if (!(r->flags & CTL_F_DUAL) && inany_is4(&r->addr) == v6)
		return false;
	/* One socket for both families, as at start (fwd_bind_port()) */
	if (dual && !v6)
		return false;
	memset(k, 0, sizeof(*k));
	k->port = port;
	k->dual = dual;
	if (splice) {
		k->bind = v6 ? in6addr_loopback : inany_from4(lo4);
		return true;
	}
	if (r->flags & CTL_F_DUAL)
		k->bind = v6 ? in6addr_any : inany_from4(any4);
	else
		k->bind = r->addr;
	memcpy(k->dev, r->ifname, sizeof(k->dev));
	k->dev[sizeof(k->dev) - 1] = '\0';
	return true;
}

/**
 * ctl_fwd_find() - the socket of a pool bound as a key says
 * @f:		state, the pool's sockets chained by port
 * @p:		the pool
 * @k:		the key
 *
 * Return: its index, -1 if none
 */
static int32_t ctl_fwd_find(const struct ctl_fwd *f, const struct ctl_pool *p,
			    const struct ctl_fwd_key *k)
{
	int32_t i;

	for (i = f->head[k->port]; i >= 0; i = p->next[i]) {
		const struct ctl_fwd_key *o = &p->key[i];

		if ((*p->lst)[i].fd >= 0 && inany_eq(&o->bind, &k->bind) &&
		    o->dual == k->dual &&
		    !strncmp(o->dev, k->dev, sizeof(o->dev)))
			return i;
	}
	return -1;
}

/**
 * ctl_fwd_drop_mark() - note a UDP socket whose inbound flows must end
 * @c:		execution context
 * @f:		state
 * @fd:		the socket
 */
static void ctl_fwd_drop_mark(struct ctx *c, struct ctl_fwd *f, int fd)
{
	if ((uint32_t)fd < f->drop_bits) {
		f->drop[fd / 64] |= 1ULL << (fd % 64);
		return;
	}
	/* Past the bitmap (a descriptor limit above 16 Mi): one walk */
	flow_forget_inbound(c, fd);
}

/**
 * ctl_fwd_drop_flows() - end the inbound UDP flows of the marked sockets:
 *			  they reply through a socket about to close or
 *			  forward elsewhere now
 * @c:		execution context
 * @f:		state
 */
static void ctl_fwd_drop_flows(struct ctx *c, struct ctl_fwd *f)
{
	uint32_t i;

	for (i = 0; i < flow_end(c); i++) {
		struct flow *fl = flow_at(c, i);

		if (fl && fl->inbound && fl->fd >= 0 &&
		    (uint32_t)fl->fd < f->drop_bits &&
		    (f->drop[fl->fd / 64] & (1ULL << (fl->fd % 64))))
			flow_free(c, fl);
	}
	memset(f->drop, 0, (f->drop_bits / 64 + 1) * sizeof(*f->drop));
}

/**
 * ctl_fwd_index() - chain a pool's sockets by port, none marked
 * @f:		state
 * @p:		the pool
 */
static void ctl_fwd_index(struct ctl_fwd *f, struct ctl_pool *p)
{
	uint32_t i;

	memset(f->head, 0xff, sizeof(f->head));
	for (i = 0; i < *p->n; i++) {
		const struct fwd_listener *l = &(*p->lst)[i];
		struct ctl_fwd_key *k = &p->key[i];

		k->mark = false;
		if (l->fd < 0 || l->any_port || !k->port)
			continue;
		p->next[i] = f->head[k->port];
		f->head[k->port] = (int32_t)i;
	}
}

/**
 * ctl_fwd_keep() - mark the sockets new rules still want, and point them
 *		    where the rules say now
 * @c:		execution context
 * @f:		state
 * @p:		the pool, indexed
 * @t:		the new table
 * @proto:	the pool's protocol
 */
static void ctl_fwd_keep(struct ctx *c, struct ctl_fwd *f, struct ctl_pool *p,
			 const struct ctl_table *t, uint8_t proto)
{
	bool splice = t->pif == CTL_PIF_SPLICE;
	struct ctl_fwd_key k;
	unsigned int i;
	uint32_t port;
	int v6;

	for (i = 0; i < t->n; i++) {
		const struct ctl_rule *r = &t->rule[i];

		if (!ctl_fwd_by_socket(c, f, r, proto))
			continue;
		for (port = r->first; port <= r->last; port++) {
			uint16_t to = (uint16_t)(r->to + (port - r->first));

			for (v6 = 0; v6 <= 1; v6++) {
				struct fwd_listener *l;
				int32_t j;

				if (!ctl_fwd_want(c, r, splice, v6,
						  (uint16_t)port, &k))
					continue;
				j = ctl_fwd_find(f, p, &k);
				if (j < 0)
					continue;
				l = &(*p->lst)[j];
				p->key[j].mark = true;
				if (l->guest_port == to &&
				    inany_eq(&l->to_addr, &r->taddr))
					continue;
				if (p->type == SOCK_DGRAM && !p->in_ns)
					ctl_fwd_drop_mark(c, f, l->fd);
				l->guest_port = to;
				l->to_addr = r->taddr;
			}
		}
	}
}

/**
 * ctl_fwd_close() - close the sockets of a pool no rule wants any more
 * @c:		execution context
 * @f:		state
 * @p:		the pool, its wanted sockets marked
 *
 * Return: sockets closed
 */
static unsigned int ctl_fwd_close(struct ctx *c, struct ctl_fwd *f,
				  struct ctl_pool *p)
{
	unsigned int closed = 0;
	uint32_t i;

	for (i = 0; i < *p->n; i++) {
		const struct fwd_listener *l = &(*p->lst)[i];

		if (l->fd >= 0 && !l->any_port && !p->key[i].mark &&
		    p->type == SOCK_DGRAM && !p->in_ns)
			ctl_fwd_drop_mark(c, f, l->fd);
	}
	if (p->type == SOCK_DGRAM && !p->in_ns)
		ctl_fwd_drop_flows(c, f);
	for (i = 0; i < *p->n; i++) {
		struct fwd_listener *l = &(*p->lst)[i];

		if (l->fd < 0 || l->any_port || p->key[i].mark)
			continue;
		epoll_ctl(c->epfd, EPOLL_CTL_DEL, l->fd, NULL);
		/* UDP local flows reply through it (namespace mode) */
		if (p->type == SOCK_DGRAM)
			udp_splice_forget(c, l->fd);
		if (!p->in_ns)
			podwatch_disown(c, l->fd);
		close(l->fd);
		l->fd = -1;
		p->key[i].port = 0;
		closed++;
	}
	while (*p->n && (*p->lst)[*p->n - 1].fd < 0)
		(*p->n)--;
	return closed;
}

/**
 * ctl_fwd_open_one() - open one socket a rule wants
 * @c:		execution context
 * @p:		the pool
 * @k:		what it is bound to
 * @idx:	its index in the pool
 *
 * Return: 0 on success, -1 on failure (errno set)
 */
static int ctl_fwd_open_one(struct ctx *c, const struct ctl_pool *p,
			    const struct ctl_fwd_key *k, uint32_t idx)
{
	struct epoll_event ev = { .events = EPOLLIN,
				  .data.u64 = epref(p->ref, idx) };
	struct fwd_listener *l = &(*p->lst)[idx];
	bool v6 = !inany_is4(&k->bind);
	int fd, e;

	l->any_port = false;
	if (!p->in_ns)
		return fwd_open_one(c, p->type, p->ref,
				    k->dual ? NULL : &k->bind, k->dev,
				    k->port, l, idx);
	fd = nssock_listen_lo(c, p->type, v6, k->port);
	if (fd < 0)
		return -1;
	if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	l->fd = fd;
	l->v6 = v6;
	return 0;
}

/**
 * ctl_fwd_fail() - a socket a rule wants could not be opened
 * @f:		state
 * @p:		the pool
 * @k:		the socket
 */
static void ctl_fwd_fail(struct ctl_fwd *f, const struct ctl_pool *p,
			 const struct ctl_fwd_key *k)
{
	char a[INET6_ADDRSTRLEN];

	if (inany_is4(&k->bind)) {
		struct in_addr a4 = inany_to4(&k->bind);

		inet_ntop(AF_INET, &a4, a, sizeof(a));
	} else {
		inet_ntop(AF_INET6, &k->bind, a, sizeof(a));
	}
	if (!f->errors++)
		snprintf(f->err, sizeof(f->err), "cannot bind %s port %u on "
			 "%s%s%s%s: %s", p->type == SOCK_STREAM ? "TCP" : "UDP",
			 k->port, a, *k->dev ? "%" : "", k->dev,
			 p->in_ns ? " in the namespace" : "", strerror(errno));
	warn("forwarding: cannot bind %s port %u on %s%s%s%s: %m",
	     p->type == SOCK_STREAM ? "TCP" : "UDP", k->port, a,
	     *k->dev ? "%" : "", k->dev, p->in_ns ? " in the namespace" : "");
}

/**
 * ctl_fwd_open() - open the sockets new rules want and a pool lacks
 * @c:		execution context
 * @f:		state
 * @p:		the pool, indexed, the sockets it keeps marked
 * @t:		the new table
 * @proto:	the pool's protocol
 *
 * Return: sockets opened
 */
static unsigned int ctl_fwd_open(struct ctx *c, struct ctl_fwd *f,
				 struct ctl_pool *p, const struct ctl_table *t,
				 uint8_t proto)
{
	bool splice = t->pif == CTL_PIF_SPLICE;
	unsigned int i, opened = 0;
	uint32_t port, hole = 0;
	struct ctl_fwd_key k;
	int v6;

	for (i = 0; i < t->n; i++) {
		const struct ctl_rule *r = &t->rule[i];
		bool weak = r->flags & CTL_F_WEAK, served = false;

		if (!ctl_fwd_by_socket(c, f, r, proto))
			continue;
		for (port = r->first; port <= r->last; port++) {
			for (v6 = 0; v6 <= 1; v6++) {
				struct fwd_listener *l;

				if (!ctl_fwd_want(c, r, splice, v6,
						  (uint16_t)port, &k))
					continue;
				if (ctl_fwd_find(f, p, &k) >= 0) {
					served = true;
					continue;
				}
				while (hole < *p->n && (*p->lst)[hole].fd >= 0)
					hole++;
				if (hole >= p->cap) {
					errno = ENOSPC;
					ctl_fwd_fail(f, p, &k);
					return opened;
				}
				if (ctl_fwd_open_one(c, p, &k, hole)) {
					if (!weak)
						ctl_fwd_fail(f, p, &k);
					continue;
				}
				l = &(*p->lst)[hole];
				if (weak && (unsigned int)l->fd >= f->fd_budget) {
					epoll_ctl(c->epfd, EPOLL_CTL_DEL, l->fd,
						  NULL);
					if (!p->in_ns)
						podwatch_disown(c, l->fd);
					close(l->fd);
					l->fd = -1;
					if (!f->budget_logged)
						warn("forwarding: best-effort "
						     "ports from %u on left "
						     "out: half the descriptor "
						     "limit is kept for "
						     "connections and flows",
						     port);
					f->budget_logged = true;
					goto next_rule;
				}
				l->guest_port = (uint16_t)(r->to +
							   (port - r->first));
				l->to_addr = r->taddr;
				p->key[hole] = k;
				p->key[hole].mark = true;
				p->next[hole] = f->head[port];
				f->head[port] = (int32_t)hole;
				if (hole == *p->n)
					(*p->n)++;
				opened++;
				served = true;
			}
		}
next_rule:
		if (!served && !weak)
			f->unserved[i] = true;
	}
	return opened;
}

/**
 * ctl_fwd_sync() - make a pool's sockets what a table wants
 * @c:		execution context
 * @f:		state
 * @pi:		the pool's index
 * @t:		the new table
 * @proto:	the pool's protocol
 */
static void ctl_fwd_sync(struct ctx *c, struct ctl_fwd *f, int pi,
			 const struct ctl_table *t, uint8_t proto)
{
	struct ctl_pool *p = &f->pool[pi];
	unsigned int closed, opened;

	if (!p->on)
		return;
	ctl_fwd_index(f, p);
	ctl_fwd_keep(c, f, p, t, proto);
	if (p->type == SOCK_DGRAM && !p->in_ns)
		ctl_fwd_drop_flows(c, f);
	closed = ctl_fwd_close(c, f, p);
	opened = ctl_fwd_open(c, f, p, t, proto);
	if (closed || opened)
		debug("forwarding: %s%s sockets: %u closed, %u opened",
		      p->in_ns ? "the namespace's " : "",
		      proto == IPPROTO_TCP ? "TCP" : "UDP", closed, opened);
}

/**
 * ctl_fwd_scan_ports() - the ports a table's "auto" rules of one protocol
 *			  follow, or the program forwards
 * @c:		execution context
 * @f:		state
 * @t:		the table
 * @proto:	the protocol
 * @lookup:	the ports of the rules sk_lookup takes, else those of the
 *		rules fwd_auto.c follows
 * @out:	filled in
 */
static void ctl_fwd_scan_ports(const struct ctx *c, const struct ctl_fwd *f,
			       const struct ctl_table *t, uint8_t proto,
			       bool lookup, struct portset *out)
{
	unsigned int i;
	uint32_t p;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < t->n; i++) {
		const struct ctl_rule *r = &t->rule[i];

		if (r->proto != proto)
			continue;
		if (lookup ? !ctl_fwd_by_lookup(c, f, r) :
			     !(r->flags & CTL_F_SCAN) ||
			     ctl_fwd_by_lookup(c, f, r))
			continue;
		for (p = r->first; p <= r->last; p++)
			portset_add(out, (uint16_t)p);
	}
}

/**
 * ctl_fwd_unserved() - take out of a table the rules that got no socket
 * @f:		state, the rules marked
 * @t:		the table
 */
static void ctl_fwd_unserved(struct ctl_fwd *f, struct ctl_table *t)
{
	char r[CTL_RULE_STRLEN];
	unsigned int i, n = 0;

	for (i = 0; i < t->n; i++) {
		if (!f->unserved[i]) {
			t->rule[n++] = t->rule[i];
			continue;
		}
		warn("forwarding: %s left out: none of its sockets could be "
		     "opened", ctlwire_rule_fmt(&t->rule[i], r, sizeof(r)));
	}
	t->n = n;
	memset(f->unserved, 0, sizeof(f->unserved));
}

/**
 * ctl_fwd_apply() - make new tables true
 * @c:		execution context
 * @t:		the tables, checked (ctl_fwd_check()): a table of netshim's
 *		not among them is emptied, as passt does
 * @n:		how many
 * @why:	set to what failed, if something did
 * @size:	its size
 *
 * The tables are taken even if some socket cannot be opened: the rest
 * is served, and the failure is logged and reported.  A rule that gets
 * no socket at all (a port below 1024 once netshim dropped its
 * privileges, a port a pod process holds) is taken out of its table, so
 * that the table says what is forwarded.
 *
 * Return: 0 on success, -1 if a socket a rule needs could not be opened
 */
int ctl_fwd_apply(struct ctx *c, const struct ctl_table *t, unsigned int n,
		  char *why, size_t size)
{
	struct ctl_fwd *f = c->ctl_fwd;
	struct ctl_table *nt;
	bool ns = conf_ns_mode(&c->conf);
	unsigned int i, j;
	char r[CTL_RULE_STRLEN];

	f->errors = 0;
	for (i = 0; i < f->ntab; i++) {
		nt = &f->tab[i];
		for (j = 0; j < n && t[j].pif != nt->pif; j++)
			;
		nt->n = j < n ? t[j].n : 0;
		if (nt->n)
			memcpy(nt->rule, t[j].rule, nt->n * sizeof(nt->rule[0]));
		info("forwarding rules for %s, from the control socket: %u",
		     ctlwire_pif_name(nt->pif), nt->n);
		for (j = 0; j < nt->n; j++)
			info("    %s", ctlwire_rule_fmt(&nt->rule[j], r,
							 sizeof(r)));
	}

	nt = &f->tab[0];
	/* The program's ports first: a rule moving from it to sockets of
	 * its own, or back, never has both take a connection.  Then the
	 * ports "auto" stops following: their sockets go before a rule of
	 * their own wants the port.
	 */
	ctl_fwd_scan_ports(c, f, nt, IPPROTO_TCP, true, &f->scan);
	if (c->sk_lookup) {
		sk_lookup_ports(c, &f->scan);
		f->lookup = f->scan;
	}
	if (ns) {
		ctl_fwd_scan_ports(c, f, nt, IPPROTO_TCP, false, &f->scan);
		fwd_auto_set(c, false, false, &f->scan);
		ctl_fwd_scan_ports(c, f, nt, IPPROTO_UDP, false, &f->scan);
		fwd_auto_set(c, true, false, &f->scan);
	}
	ctl_fwd_sync(c, f, POOL_TCP, nt, IPPROTO_TCP);
	ctl_fwd_sync(c, f, POOL_UDP, nt, IPPROTO_UDP);
	ctl_fwd_unserved(f, nt);
	if (fwdtable_to_spec(nt, IPPROTO_TCP, &c->conf.tcp_fwd) ||
	    fwdtable_to_spec(nt, IPPROTO_UDP, &c->conf.udp_fwd))
		warn("forwarding: more rules than lookups hold");

	if (ns && f->ntab > 1) {
		nt = &f->tab[1];
		ctl_fwd_scan_ports(c, f, nt, IPPROTO_TCP, false, &f->scan);
		fwd_auto_set(c, false, true, &f->scan);
		ctl_fwd_scan_ports(c, f, nt, IPPROTO_UDP, false, &f->scan);
		fwd_auto_set(c, true, true, &f->scan);
		ctl_fwd_sync(c, f, POOL_TCP_NS, nt, IPPROTO_TCP);
		ctl_fwd_sync(c, f, POOL_UDP_NS, nt, IPPROTO_UDP);
		ctl_fwd_unserved(f, nt);
	}
	if (!f->errors)
		return 0;
	snprintf(why, size, "%s%s", f->err,
		 f->errors > 1 ? " (and more: see the log)" : "");
	return -1;
}
