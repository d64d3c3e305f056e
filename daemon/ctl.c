// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - the control socket (-c) and the counters' socket (--metrics)
 *
 * -c PATH is passt 2026's configuration socket: pesto, passt's client,
 * lists the forwarding rules and replaces them (ctlwire.c has the
 * protocol, ctl_fwd.c makes new rules true).  netshim's own client,
 * netshim-ctl, reads the same greeting and may ask instead for the
 * counters in Prometheus' text format, the guest's live flows, or a
 * capture of its frames from now on, until it hangs up.
 *
 * --metrics PATH serves the counters alone: to a client that sends an
 * HTTP GET, as an HTTP response; to one that sends nothing and reads (or
 * shuts its side), as the text itself.
 *
 * The socket is an attack surface, and the guest must not notice it:
 * - it is made owner-only (mode 0600), and a client whose credentials
 *   (SO_PEERCRED) are neither root's nor those of the user that started
 *   netshim is refused, with the reason;
 * - a few clients at a time (the others wait in the backlog), at most so
 *   many a second, one request each, of bounded size, within a time
 *   limit: a slow or silent client is cut off;
 * - a malformed request is refused with the reason, logged and counted;
 * - everything is non-blocking and serviced by the loop, with buffers
 *   sized at start-up: a client that stops reading loses its answer (a
 *   capture loses frames, counted), never holds the guest's traffic.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "ctl.h"
#include "ctl_fwd.h"
#include "bpf/sk_lookup.h"
#include "net/flow.h"
#include "net/flowinfo.h"
#include "netshim/ctlwire.h"
#include "netshim/fdpool.h"
#include "netshim/inany.h"
#include "netshim/log.h"
#include "netshim/pcap.h"
#include "netshim/unixsock.h"
#include "tcp/splice.h"
#include "tcp/tcp.h"
#include "udp/splice.h"

#ifndef NETSHIM_VERSION
#define NETSHIM_VERSION "unknown"
#endif

#define CTL_CLIENTS		4	/* of -c at once */
#define CTL_METRICS_CLIENTS	2	/* of --metrics at once */
#define CTL_SLOTS		(CTL_CLIENTS + CTL_METRICS_CLIENTS)
#define CTL_ACCEPT_RATE		32	/* clients a second, both sockets */
#define CTL_READ_TIMEOUT	10	/* s to send a whole request */
#define CTL_WRITE_TIMEOUT	30	/* s to read a whole answer */
#define CTL_METRICS_WAIT_MS	500	/* a silent --metrics client: text */
#define CTL_IN_MAX		CTL_UPDATE_LEN_MAX
#define CTL_OUT_MAX		(64 << 10)
#define CTL_CAPTURE_RING	(4 << 20)
#define CTL_BACKLOG		8

/**
 * enum ctl_phase - where a client is
 * @CTL_FREE:		no client in the slot
 * @CTL_READ:		its request is awaited (the greeting may be on its
 *			way out)
 * @CTL_WRITE:		answered: the answer goes out, then the slot is
 *			freed
 * @CTL_CAPTURE:	a capture runs to it, until it hangs up or another
 *			client stops it
 */
enum ctl_phase {
	CTL_FREE = 0,
	CTL_READ,
	CTL_WRITE,
	CTL_CAPTURE,
};

/**
 * enum ctl_gen - a long answer written as the client reads it
 * @CTL_GEN_NONE:	nothing more to write
 * @CTL_GEN_TCP:	the flows: TCP connections from @cursor on
 * @CTL_GEN_FLOWS:	then UDP and ICMP flows from @cursor on
 */
enum ctl_gen {
	CTL_GEN_NONE = 0,
	CTL_GEN_TCP,
	CTL_GEN_FLOWS,
};

/**
 * struct ctl_client - one client of either socket
 * @fd:		its connection
 * @phase:	enum ctl_phase
 * @metrics:	a client of --metrics
 * @pid:	its process, from SO_PEERCRED, for the log
 * @since:	when it came (ms, CLOCK_MONOTONIC)
 * @deadline:	when it is cut off (ms), 0 for never
 * @in:		its request so far
 * @in_len:	bytes of it
 * @out:	what goes to it
 * @out_len:	bytes there
 * @out_off:	bytes of those sent
 * @gen:	enum ctl_gen: more to write once @out drained
 * @cursor:	where @gen is
 * @pending:	a capture's ring holds bytes the connection did not take
 * @events:	epoll events registered
 */
struct ctl_client {
	int fd;
	enum ctl_phase phase;
	bool metrics;
	pid_t pid;
	int64_t since;
	int64_t deadline;
	uint8_t *in;
	size_t in_len;
	char *out;
	size_t out_len, out_off;
	enum ctl_gen gen;
	uint32_t cursor;
	bool pending;
	uint32_t events;
};

/**
 * struct ctl_path - a socket to remove at exit
 * @dirfd:	its directory, opened before the sandbox, -1 for none
 * @name:	its name there
 */
struct ctl_path {
	int dirfd;
	char name[108];
};

/**
 * struct ctl - both sockets and their clients
 * @fd:		the control socket, -1 without -c
 * @metrics_fd:	the counters' socket, -1 without --metrics
 * @paused:	each listening socket (control, counters) is left out of
 *		epoll for now: no free slot of its own, or enough clients
 *		this second
 * @owner:	the user that started netshim, allowed besides root
 * @accepted:	clients this second
 * @second:	that second
 * @path:	the control socket, to remove at exit
 * @metrics_path: the counters' socket
 * @req:	a parsed request (the loop runs one at a time)
 * @cl:		the clients: CTL_CLIENTS of -c, then of --metrics
 */
struct ctl {
	int fd;
	int metrics_fd;
	bool paused[2];
	uid_t owner;
	unsigned int accepted;
	time_t second;
	struct ctl_path path, metrics_path;
	struct ctl_req req;
	struct ctl_client cl[CTL_SLOTS];
};

/**
 * ctl_now_ms() - the loop's time in milliseconds
 * @c:		execution context
 *
 * Return: milliseconds, CLOCK_MONOTONIC
 */
static int64_t ctl_now_ms(const struct ctx *c)
{
	return (int64_t)c->now.tv_sec * 1000 + c->now.tv_nsec / 1000000;
}

/**
 * ctl_listen() - make one listening socket, owner-only
 * @c:		execution context
 * @path:	where
 * @ref:	its epoll reference type
 * @keep:	filled in: how to remove it at exit
 *
 * Return: the socket, -1 on failure (reported)
 */
static int ctl_listen(struct ctx *c, const char *path, enum epref_type ref,
		      struct ctl_path *keep)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = epref(ref, 0) };
	char dir[108], base[108];
	mode_t old = umask(077);
	/* Taking over from a running netshim: its socket (fdpool.c) */
	int fd = fdpool_take_unix(path);

	if (fd < 0)
		fd = unix_listen(path);
	umask(old);
	if (fd < 0) {
		err("cannot listen on %s: %m%s", path, errno == EADDRINUSE ?
		    " (another process listens there)" : "");
		return -1;
	}
	if (listen(fd, CTL_BACKLOG) ||
	    epoll_ctl(c->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		err("cannot listen on %s: %m", path);
		close(fd);
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	snprintf(base, sizeof(base), "%s", path);
	snprintf(keep->name, sizeof(keep->name), "%s", basename(base));
	keep->dirfd = open(dirname(dir), O_PATH | O_DIRECTORY | O_CLOEXEC);
	return fd;
}

/**
 * ctl_init() - open the control and counters' sockets, size everything
 * @c:		execution context, forwarding set up (ctl_fwd_init()),
 *		before the sandbox
 *
 * Return: 0 on success or without -c and --metrics, -1 on failure
 *	   (reported)
 */
int ctl_init(struct ctx *c)
{
	struct ctl *t;
	int i;

	if (!*c->conf.ctl_path && !*c->conf.metrics_path)
		return 0;
	t = calloc(1, sizeof(*t));
	if (!t)
		goto nomem;
	t->fd = t->metrics_fd = -1;
	t->path.dirfd = t->metrics_path.dirfd = -1;
	t->owner = geteuid();
	for (i = 0; i < CTL_SLOTS; i++) {
		t->cl[i].fd = -1;
		t->cl[i].in = malloc(CTL_IN_MAX);
		t->cl[i].out = malloc(CTL_OUT_MAX);
		if (!t->cl[i].in || !t->cl[i].out)
			goto nomem;
	}
	c->ctl = t;
	if (*c->conf.ctl_path) {
		if (pcap_live_init(CTL_CAPTURE_RING))
			goto nomem;
		t->fd = ctl_listen(c, c->conf.ctl_path, EPREF_CTL_LISTEN,
				   &t->path);
		if (t->fd < 0)
			return -1;
		info("control socket (pesto, netshim-ctl): %s",
		     c->conf.ctl_path);
	}
	if (*c->conf.metrics_path) {
		t->metrics_fd = ctl_listen(c, c->conf.metrics_path,
					   EPREF_METRICS_LISTEN,
					   &t->metrics_path);
		if (t->metrics_fd < 0)
			return -1;
		info("counters in Prometheus' text format: %s",
		     c->conf.metrics_path);
	}
	return 0;
nomem:
	err("out of memory for the control socket");
	return -1;
}

/**
 * ctl_listeners() - the listening sockets of -c and --metrics, for an
 *		     upgrade in place to hand over
 * @c:		execution context
 * @ctl:	set to the control socket, or -1
 * @metrics:	set to the counters' socket, or -1
 */
void ctl_listeners(const struct ctx *c, int *ctl, int *metrics)
{
	*ctl = c->ctl ? c->ctl->fd : -1;
	*metrics = c->ctl ? c->ctl->metrics_fd : -1;
}

/**
 * ctl_pause() - take a listening socket out of epoll, or back in: its
 *		 clients wait in the backlog meanwhile
 * @c:		execution context
 * @metrics:	the counters' socket, else the control socket
 * @pause:	out, else back in
 */
static void ctl_pause(struct ctx *c, bool metrics, bool pause)
{
	struct ctl *t = c->ctl;
	struct epoll_event ev = { .events = pause ? 0 : EPOLLIN };
	int fd = metrics ? t->metrics_fd : t->fd;

	if (t->paused[metrics] == pause || fd < 0)
		return;
	t->paused[metrics] = pause;
	ev.data.u64 = epref(metrics ? EPREF_METRICS_LISTEN : EPREF_CTL_LISTEN,
			    0);
	epoll_ctl(c->epfd, EPOLL_CTL_MOD, fd, &ev);
}

/**
 * ctl_watch() - the events a client's connection is watched for
 * @c:		execution context
 * @cl:		the client
 */
static void ctl_watch(struct ctx *c, struct ctl_client *cl)
{
	struct epoll_event ev = { 0 };
	uint32_t want = 0;

	if (cl->phase == CTL_READ || cl->phase == CTL_CAPTURE)
		want |= EPOLLIN;
	if (cl->out_off < cl->out_len || cl->pending)
		want |= EPOLLOUT;
	if (want == cl->events)
		return;
	ev.events = want;
	ev.data.u64 = epref(EPREF_CTL, (uint32_t)(cl - c->ctl->cl));
	epoll_ctl(c->epfd, EPOLL_CTL_MOD, cl->fd, &ev);
	cl->events = want;
}

/**
 * ctl_drop() - hang up on a client, free its slot
 * @c:		execution context
 * @cl:		the client
 */
static void ctl_drop(struct ctx *c, struct ctl_client *cl)
{
	if (pcap_live_fd() == cl->fd)
		pcap_live_end(c);
	epoll_ctl(c->epfd, EPOLL_CTL_DEL, cl->fd, NULL);
	close(cl->fd);
	cl->fd = -1;
	cl->phase = CTL_FREE;
	/* A slot is free: the next client waiting may come */
	if (c->ctl->accepted < CTL_ACCEPT_RATE)
		ctl_pause(c, cl->metrics, false);
}

/**
 * ctl_vput() - append to a client's answer
 * @cl:		the client
 * @fmt:	format
 * @ap:		arguments
 *
 * Return: true if it fit whole
 */
static bool ctl_vput(struct ctl_client *cl, const char *fmt, va_list ap)
{
	size_t room = CTL_OUT_MAX - cl->out_len;
	int n = vsnprintf(cl->out + cl->out_len, room, fmt, ap);

	if (n < 0 || (size_t)n >= room)
		return false;
	cl->out_len += (size_t)n;
	return true;
}

/**
 * ctl_put() - append to a client's answer
 * @cl:		the client
 * @fmt:	format, then its arguments
 *
 * Return: true if it fit whole
 */
static bool __attribute__((format(printf, 2, 3)))
ctl_put(struct ctl_client *cl, const char *fmt, ...)
{
	va_list ap;
	bool ok;

	va_start(ap, fmt);
	ok = ctl_vput(cl, fmt, ap);
	va_end(ap);
	return ok;
}

/**
 * ctl_answer() - answer a client and hang up once it has the answer
 * @c:		execution context
 * @cl:		the client
 * @fmt:	format of the answer, then its arguments
 */
static void __attribute__((format(printf, 3, 4)))
ctl_answer(struct ctx *c, struct ctl_client *cl, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ctl_vput(cl, fmt, ap);
	va_end(ap);
	cl->phase = CTL_WRITE;
	cl->deadline = ctl_now_ms(c) + CTL_WRITE_TIMEOUT * 1000;
}

/**
 * ctl_refuse() - refuse a client's request, with the reason, logged
 * @c:		execution context
 * @cl:		the client
 * @why:	the reason
 */
static void ctl_refuse(struct ctx *c, struct ctl_client *cl, const char *why)
{
	c->cnt.ctl_refused++;
	warn_rl(c->now.tv_sec, "control socket: request of pid %d refused: %s",
		(int)cl->pid, why);
	ctl_answer(c, cl, "error: %s\n", why);
}

/**
 * ctl_greet() - the greeting and the rule tables, as pesto expects them
 * @c:		execution context
 * @cl:		the client
 */
static void ctl_greet(struct ctx *c, struct ctl_client *cl)
{
	uint8_t *out = (uint8_t *)cl->out;
	const struct ctl_table *tab;
	unsigned int n, i;

	cl->out_len = ctlwire_hello(out);
	tab = ctl_fwd_tables(c, &n);
	for (i = 0; i < n; i++)
		cl->out_len += ctlwire_listing_put(out + cl->out_len,
						   CTL_OUT_MAX - cl->out_len,
						   &tab[i]);
	out[cl->out_len++] = CTL_PIF_NONE;
}

/**
 * ctl_peer_ok() - whether a client may use the control socket
 * @c:		execution context
 * @cl:		the client, its pid set here
 * @why:	set to the reason if not
 * @size:	its size
 *
 * Return: true for root and the user that started netshim
 */
static bool ctl_peer_ok(struct ctx *c, struct ctl_client *cl, char *why,
			size_t size)
{
	struct ucred uc = { .pid = 0 };
	socklen_t len = sizeof(uc);

	if (getsockopt(cl->fd, SOL_SOCKET, SO_PEERCRED, &uc, &len)) {
		snprintf(why, size, "its credentials cannot be read: %s",
			 strerror(errno));
		return false;
	}
	cl->pid = uc.pid;
	if (uc.uid == 0 || uc.uid == c->ctl->owner)
		return true;
	snprintf(why, size, "uid %u is neither root nor netshim's owner "
		 "(uid %u)", (unsigned int)uc.uid,
		 (unsigned int)c->ctl->owner);
	return false;
}

/**
 * ctl_listen_ready() - clients wait on a listening socket
 * @c:		execution context
 * @metrics:	the counters' socket, else the control socket
 */
void ctl_listen_ready(struct ctx *c, bool metrics)
{
	struct ctl *t = c->ctl;
	int first = metrics ? CTL_CLIENTS : 0, i;
	int last = metrics ? CTL_SLOTS : CTL_CLIENTS;
	struct epoll_event ev = { .events = 0 };
	char why[128];

	if (!t)
		return;
	if (t->second != c->now.tv_sec) {
		t->second = c->now.tv_sec;
		t->accepted = 0;
	}
	for (;;) {
		struct ctl_client *cl = NULL;
		int fd;

		for (i = first; i < last && !cl; i++)
			if (t->cl[i].phase == CTL_FREE)
				cl = &t->cl[i];
		if (!cl || t->accepted >= CTL_ACCEPT_RATE) {
			/* The rest wait in the backlog, not refused */
			ctl_pause(c, metrics, true);
			return;
		}
		fd = accept4(metrics ? t->metrics_fd : t->fd, NULL, NULL,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		t->accepted++;
		memset(cl, 0, offsetof(struct ctl_client, in));
		cl->fd = fd;
		cl->metrics = metrics;
		cl->phase = CTL_READ;
		cl->in_len = cl->out_len = cl->out_off = 0;
		cl->gen = CTL_GEN_NONE;
		cl->pending = false;
		cl->events = 0;
		cl->since = ctl_now_ms(c);
		cl->deadline = cl->since + (metrics ? CTL_METRICS_WAIT_MS :
					    CTL_READ_TIMEOUT * 1000);
		ev.data.u64 = epref(EPREF_CTL, (uint32_t)(cl - t->cl));
		if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, fd, &ev)) {
			close(fd);
			cl->fd = -1;
			cl->phase = CTL_FREE;
			continue;
		}
		if (!metrics && !ctl_peer_ok(c, cl, why, sizeof(why))) {
			c->cnt.ctl_refused++;
			warn_rl(c->now.tv_sec, "control socket: client pid %d "
				"refused: %s", (int)cl->pid, why);
			ctl_answer(c, cl, "netshim: refused: %s\n", why);
		} else if (!metrics) {
			ctl_greet(c, cl);
		}
		ctl_watch(c, cl);
	}
}

/**
 * ctl_metric() - one counter in Prometheus' text format
 * @buf:	output
 * @size:	its size
 * @len:	length so far, updated
 * @name:	the metric, netshim_ prefixed here
 * @type:	"counter" or "gauge"
 * @help:	what it counts
 * @v:		its value
 */
static void ctl_metric(char *buf, size_t size, size_t *len, const char *name,
		       const char *type, const char *help, uint64_t v)
{
	log_buf_add(buf, size, len, "# HELP netshim_%s %s\n"
		    "# TYPE netshim_%s %s\nnetshim_%s %llu\n", name, help, name,
		    type, name, (unsigned long long)v);
}

/**
 * ctl_metrics() - the counters in Prometheus' text exposition format
 * @c:		execution context
 * @buf:	output
 * @size:	its size
 *
 * Each counter of the SIGUSR1 log: drop_NAME as netshim_dropped_total
 * with reason="NAME", link_buf_reached as a gauge of bytes, every other
 * NAME as netshim_NAME_total; then the flows open now, by protocol.
 *
 * Return: bytes written
 */
size_t ctl_metrics(struct ctx *c, char *buf, size_t size)
{
	unsigned int tcp = tcp_count(c), udp = 0, icmp = 0;
	size_t len = 0;
	uint32_t i;

	*buf = '\0';
	splice_counters(c);
	for (i = 0; i < flow_end(c); i++) {
		const struct flow *f = flow_at(c, i);

		if (f && f->proto == IPPROTO_UDP)
			udp++;
		else if (f)
			icmp++;
	}
	log_buf_add(buf, size, &len, "# HELP netshim_info netshim's version\n"
		    "# TYPE netshim_info gauge\n"
		    "netshim_info{version=\"%s\"} 1\n", NETSHIM_VERSION);
	log_buf_add(buf, size, &len, "# HELP netshim_dropped_total frames "
		    "dropped (and VMM connections reset), by reason: "
		    "netshim(1), COUNTERS\n"
		    "# TYPE netshim_dropped_total counter\n");
#define CTL_DROP(name, desc)						\
	if (!strncmp(#name, "drop_", 5))				\
		log_buf_add(buf, size, &len,				\
			    "netshim_dropped_total{reason=\"%s\"} %llu\n", \
			    &#name[5], (unsigned long long)c->cnt.name);
	COUNTERS(CTL_DROP)
#undef CTL_DROP
#define CTL_COUNTER(name, desc)						\
	if (!strcmp(#name, "link_buf_reached"))				\
		ctl_metric(buf, size, &len, #name "_bytes", "gauge", desc, \
			   c->cnt.name);				\
	else if (strncmp(#name, "drop_", 5))				\
		ctl_metric(buf, size, &len, #name "_total", "counter",	\
			   desc, c->cnt.name);
	COUNTERS(CTL_COUNTER)
#undef CTL_COUNTER
	ctl_metric(buf, size, &len, "sk_lookup_assigned_total", "counter",
		   "TCP connections handed over by eBPF sk_lookup",
		   sk_lookup_assigned(c));
	log_buf_add(buf, size, &len, "# HELP netshim_open_flows flows open "
		    "now, by protocol (local: spliced in namespace mode)\n"
		    "# TYPE netshim_open_flows gauge\n"
		    "netshim_open_flows{proto=\"tcp\"} %u\n"
		    "netshim_open_flows{proto=\"udp\"} %u\n"
		    "netshim_open_flows{proto=\"icmp\"} %u\n"
		    "netshim_open_flows{proto=\"tcp_local\"} %u\n"
		    "netshim_open_flows{proto=\"udp_local\"} %u\n",
		    tcp, udp, icmp, c->splice ? splice_count(c) : 0,
		    c->udp_splice ? udp_splice_count(c) : 0);
	return len;
}

/**
 * ctl_addr() - an address and port as "a.b.c.d:p" or "[a::b]:p"
 * @a:		the address, v4-mapped for IPv4
 * @port:	the port
 * @buf:	output
 * @size:	its size
 *
 * Return: @buf
 */
static const char *ctl_addr(const struct in6_addr *a, uint16_t port,
			    char *buf, size_t size)
{
	char s[INET6_ADDRSTRLEN];

	if (inany_is4(a)) {
		struct in_addr a4 = inany_to4(a);

		inet_ntop(AF_INET, &a4, s, sizeof(s));
		snprintf(buf, size, "%s:%u", s, port);
	} else {
		inet_ntop(AF_INET6, a, s, sizeof(s));
		snprintf(buf, size, "[%s]:%u", s, port);
	}
	return buf;
}

/**
 * ctl_sock_addr() - one end of a socket, as ctl_addr() writes it
 * @fd:		the socket, -1 for none
 * @peer:	its peer, else its own end
 * @buf:	output, "-" if it cannot be told
 * @size:	its size
 *
 * Return: @buf
 */
static const char *ctl_sock_addr(int fd, bool peer, char *buf, size_t size)
{
	struct sockaddr_storage sa;
	socklen_t sl = sizeof(sa);
	struct in6_addr a;
	uint16_t port;

	if (fd < 0 || (peer ? getpeername(fd, (struct sockaddr *)&sa, &sl) :
			      getsockname(fd, (struct sockaddr *)&sa, &sl)) ||
	    (sa.ss_family != AF_INET && sa.ss_family != AF_INET6)) {
		snprintf(buf, size, "-");
		return buf;
	}
	inany_from_sockaddr(&sa, &a, &port);
	return ctl_addr(&a, port, buf, size);
}

/**
 * ctl_flow_line() - one flow of netshim-ctl's listing
 * @c:		execution context
 * @cl:		the client
 * @fi:		the flow
 *
 * Return: true if it fit
 */
static bool ctl_flow_line(const struct ctx *c, struct ctl_client *cl,
			  const struct flow_info *fi)
{
	char g[64], r[64], l[64], p[64];
	const char *proto;
	bool icmp = fi->proto != IPPROTO_TCP && fi->proto != IPPROTO_UDP;

	proto = fi->proto == IPPROTO_TCP ? "tcp" :
		fi->proto == IPPROTO_UDP ? "udp" :
		fi->proto == IPPROTO_ICMP ? "icmp" : "icmpv6";
	ctl_addr(&fi->gaddr, fi->gport, g, sizeof(g));
	ctl_addr(&fi->raddr, fi->rport, r, sizeof(r));
	if (icmp) {
		/* An echo identifier, not a port: the address alone */
		*strrchr(r, ':') = '\0';
	}
	ctl_sock_addr(fi->fd, false, l, sizeof(l));
	ctl_sock_addr(fi->fd, true, p, sizeof(p));
	/* An inbound UDP flow shares the listener: its peer is the client */
	if (!strcmp(p, "-") && fi->inbound)
		ctl_addr(&fi->raddr, fi->rport, p, sizeof(p));
	return ctl_put(cl, "%-6s %-14s %-3s %-46s %-46s %-46s %-46s %12llu "
		       "%12llu %6lld %6lld\n", proto, fi->state,
		       fi->inbound ? "in" : "out", g, r, l, p,
		       (unsigned long long)fi->from_guest,
		       (unsigned long long)fi->to_guest,
		       (long long)(c->now.tv_sec - fi->born),
		       (long long)(c->now.tv_sec - fi->last));
}

/**
 * ctl_flows_more() - write flows while the answer has room
 * @c:		execution context
 * @cl:		the client, its answer drained
 */
static void ctl_flows_more(struct ctx *c, struct ctl_client *cl)
{
	struct flow_info fi;

	while (cl->gen == CTL_GEN_TCP) {
		if (cl->cursor >= tcp_conn_end(c)) {
			cl->gen = CTL_GEN_FLOWS;
			cl->cursor = 0;
			break;
		}
		if (tcp_conn_info(c, cl->cursor, &fi) &&
		    !ctl_flow_line(c, cl, &fi))
			return;
		cl->cursor++;
	}
	while (cl->gen == CTL_GEN_FLOWS) {
		const struct flow *f;

		if (cl->cursor >= flow_end(c)) {
			cl->gen = CTL_GEN_NONE;
			break;
		}
		f = flow_at(c, cl->cursor);
		if (f) {
			memset(&fi, 0, sizeof(fi));
			fi.proto = f->proto;
			fi.inbound = f->inbound;
			fi.state = f->proto == IPPROTO_UDP ? "OPEN" : "ECHO";
			fi.gaddr = f->gaddr;
			fi.gport = f->gport;
			fi.raddr = f->raddr;
			fi.rport = f->rport;
			fi.fd = f->fd;
			fi.from_guest = f->from_guest;
			fi.to_guest = f->to_guest;
			fi.born = f->born;
			fi.last = f->last;
			if (!ctl_flow_line(c, cl, &fi))
				return;
		}
		cl->cursor++;
	}
}

/**
 * ctl_flush() - send what a client's answer holds, write more of a long
 *		 one, then a capture's frames; hang up once all is sent
 * @c:		execution context
 * @cl:		the client
 */
static void ctl_flush(struct ctx *c, struct ctl_client *cl)
{
	int rc;

	for (;;) {
		ssize_t n;

		if (cl->out_off == cl->out_len) {
			cl->out_off = cl->out_len = 0;
			if (cl->gen == CTL_GEN_NONE)
				break;
			ctl_flows_more(c, cl);
			if (!cl->out_len)
				break;
		}
		n = send(cl->fd, cl->out + cl->out_off,
			 cl->out_len - cl->out_off, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			ctl_watch(c, cl);
			return;
		}
		if (n <= 0) {
			ctl_drop(c, cl);
			return;
		}
		cl->out_off += (size_t)n;
	}
	/* The greeting went first: a capture's frames follow it */
	if (cl->fd == pcap_live_fd()) {
		rc = pcap_live_flush(c);
		if (rc < 0) {
			ctl_drop(c, cl);
			return;
		}
		cl->pending = rc > 0;
		if (cl->pending || cl->phase == CTL_CAPTURE) {
			ctl_watch(c, cl);
			return;
		}
	}
	if (cl->phase == CTL_WRITE) {
		ctl_drop(c, cl);
		return;
	}
	ctl_watch(c, cl);
}

/**
 * ctl_capture() - a client asks for a capture from now on
 * @c:		execution context
 * @cl:		the client: its connection gets the capture
 * @arg:	"" or the bytes of each frame to keep
 */
static void ctl_capture(struct ctx *c, struct ctl_client *cl, const char *arg)
{
	unsigned long snaplen = 0;
	char *end;

	if (*arg) {
		errno = 0;
		snaplen = strtoul(arg, &end, 10);
		if (errno || *end || snaplen < 14 || snaplen > FRAME_MAX) {
			ctl_refuse(c, cl, "capture takes the bytes of each "
				   "frame to keep, 14 to 65535");
			return;
		}
	}
	if (pcap_live_start(c, cl->fd, (uint32_t)snaplen)) {
		ctl_refuse(c, cl, errno == EBUSY ?
			   "a capture runs already (another client's, or "
			   "--pcap's)" : "no room for a capture");
		return;
	}
	/* The greeting was sent first: the capture follows it */
	cl->phase = CTL_CAPTURE;
	cl->deadline = 0;
	c->cnt.ctl_requests++;
}

/**
 * ctl_capture_stop() - a client stops the capture another one reads
 * @c:		execution context
 * @cl:		the client asking
 *
 * The reader gets what the ring holds, whole frames, then the end.
 */
static void ctl_capture_stop(struct ctx *c, struct ctl_client *cl)
{
	uint64_t frames, dropped;
	int i;

	for (i = 0; i < CTL_CLIENTS; i++) {
		struct ctl_client *o = &c->ctl->cl[i];

		if (o->phase != CTL_CAPTURE)
			continue;
		pcap_live_stop(c, &frames, &dropped);
		o->phase = CTL_WRITE;
		o->deadline = ctl_now_ms(c) + CTL_WRITE_TIMEOUT * 1000;
		ctl_flush(c, o);
		c->cnt.ctl_requests++;
		ctl_answer(c, cl, "ok: capture stopped: %llu frames, %llu "
			   "left out\n", (unsigned long long)frames,
			   (unsigned long long)dropped);
		return;
	}
	ctl_refuse(c, cl, "no capture runs");
}

/**
 * ctl_rules() - new rule tables from a client (pesto, netshim-ctl)
 * @c:		execution context
 * @cl:		the client
 */
static void ctl_rules(struct ctx *c, struct ctl_client *cl)
{
	struct ctl_req *req = &c->ctl->req;
	char why[512];

	if (!c->ctl_fwd) {
		ctl_refuse(c, cl, "no rules here");
		return;
	}
	if (ctl_fwd_check(c, req->table, req->n, why, sizeof(why))) {
		ctl_refuse(c, cl, why);
		return;
	}
	info("control socket: new forwarding rules from pid %d",
	     (int)cl->pid);
	c->cnt.ctl_requests++;
	if (ctl_fwd_apply(c, req->table, req->n, why, sizeof(why)))
		ctl_answer(c, cl, "error: rules taken but for those that "
			   "got no socket: %s\n", why);
	else
		ctl_answer(c, cl, "ok\n");
}

/**
 * ctl_text() - a request of netshim-ctl's own
 * @c:		execution context
 * @cl:		the client
 */
static void ctl_text(struct ctx *c, struct ctl_client *cl)
{
	const struct ctl_req *req = &c->ctl->req;

	if (!strcmp(req->verb, "metrics") && !*req->arg) {
		/* Counted once served: the text is what SIGUSR1 logs now */
		cl->out_len += ctl_metrics(c, cl->out + cl->out_len,
					   CTL_OUT_MAX - cl->out_len);
		c->cnt.ctl_requests++;
		ctl_answer(c, cl, "%s", "");
	} else if (!strcmp(req->verb, "flows") && !*req->arg) {
		c->cnt.ctl_requests++;
		ctl_answer(c, cl, "%-6s %-14s %-3s %-46s %-46s %-46s %-46s "
			   "%12s %12s %6s %6s\n", "PROTO", "STATE", "DIR",
			   "GUEST", "REMOTE", "POD-LOCAL", "POD-PEER",
			   "FROM-GUEST", "TO-GUEST", "AGE", "IDLE");
		cl->gen = CTL_GEN_TCP;
		cl->cursor = 0;
	} else if (!strcmp(req->verb, "capture")) {
		ctl_capture(c, cl, req->arg);
	} else if (!strcmp(req->verb, "capture-stop") && !*req->arg) {
		ctl_capture_stop(c, cl);
	} else {
		ctl_refuse(c, cl, "unknown request: netshim-ctl asks "
			   "metrics, flows, capture [SNAPLEN] or capture-stop");
	}
}

/**
 * ctl_http() - a --metrics client's request, once whole or given up on
 * @c:		execution context
 * @cl:		the client
 * @eof:	it sent all it will
 */
static void ctl_http(struct ctx *c, struct ctl_client *cl, bool eof)
{
	static const char ok[] = "HTTP/1.0 200 OK\r\nContent-Type: text/plain; "
				 "version=0.0.4; charset=utf-8\r\n"
				 "Connection: close\r\n\r\n";
	const char *in = (const char *)cl->in;
	bool get = cl->in_len >= 4 && !memcmp(in, "GET ", 4);

	if (cl->in_len && !get && (cl->in_len >= 4 || eof)) {
		c->cnt.ctl_refused++;
		ctl_answer(c, cl, "HTTP/1.0 400 Bad Request\r\n"
			   "Connection: close\r\n\r\n"
			   "netshim: only GET, or nothing, for the counters\n");
		return;
	}
	if (get && !memmem(in, cl->in_len, "\r\n\r\n", 4) &&
	    !memmem(in, cl->in_len, "\n\n", 2)) {
		if (!eof && cl->in_len < CTL_IN_MAX)
			return;
		c->cnt.ctl_refused++;
		ctl_answer(c, cl, "HTTP/1.0 400 Bad Request\r\n"
			   "Connection: close\r\n\r\n"
			   "netshim: an HTTP request without its end\n");
		return;
	}
	if (!get && !eof)
		return;
	if (get)
		ctl_put(cl, "%s", ok);
	cl->out_len += ctl_metrics(c, cl->out + cl->out_len,
				   CTL_OUT_MAX - cl->out_len);
	c->cnt.ctl_requests++;
	ctl_answer(c, cl, "%s", "");
}

/**
 * ctl_request() - what a client sent so far: act once it is whole
 * @c:		execution context
 * @cl:		the client
 * @eof:	it sent all it will
 */
static void ctl_request(struct ctx *c, struct ctl_client *cl, bool eof)
{
	struct ctl_req *req = &c->ctl->req;

	if (cl->metrics) {
		ctl_http(c, cl, eof);
		return;
	}
	ctlwire_parse(cl->in, cl->in_len, req);
	switch (req->kind) {
	case CTL_REQ_MORE:
		if (!eof && cl->in_len < CTL_IN_MAX)
			return;
		if (!cl->in_len) {
			/* pesto lists and hangs up */
			c->cnt.ctl_requests++;
			ctl_answer(c, cl, "%s", "");
			return;
		}
		ctl_refuse(c, cl, cl->in_len < CTL_IN_MAX ?
			   "request cut short" : "request too long");
		return;
	case CTL_REQ_BAD:
		ctl_refuse(c, cl, req->why);
		return;
	case CTL_REQ_RULES:
		ctl_rules(c, cl);
		return;
	case CTL_REQ_TEXT:
		ctl_text(c, cl);
		return;
	}
}

/**
 * ctl_read() - take what a client sent
 * @c:		execution context
 * @cl:		the client
 */
static void ctl_read(struct ctx *c, struct ctl_client *cl)
{
	bool eof = false;
	ssize_t n;

	if (cl->phase == CTL_CAPTURE) {
		uint8_t discard[256];

		/* Anything but a hang-up from a capture's reader is noise */
		n = recv(cl->fd, discard, sizeof(discard), MSG_DONTWAIT);
		if (!n || (n < 0 && errno != EAGAIN && errno != EINTR))
			ctl_drop(c, cl);
		return;
	}
	while (cl->in_len < CTL_IN_MAX) {
		n = recv(cl->fd, cl->in + cl->in_len, CTL_IN_MAX - cl->in_len,
			 MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			break;
		if (n <= 0) {
			eof = true;
			break;
		}
		cl->in_len += (size_t)n;
	}
	ctl_request(c, cl, eof);
	if (cl->phase == CTL_READ && eof) {
		ctl_drop(c, cl);
		return;
	}
	ctl_flush(c, cl);
}

/**
 * ctl_ready() - a client's connection is readable or writable
 * @c:		execution context
 * @idx:	its slot
 * @events:	epoll events
 */
void ctl_ready(struct ctx *c, uint32_t idx, uint32_t events)
{
	struct ctl_client *cl;

	if (!c->ctl || idx >= CTL_SLOTS || c->ctl->cl[idx].phase == CTL_FREE)
		return;
	cl = &c->ctl->cl[idx];
	if (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
		if (cl->phase == CTL_READ || cl->phase == CTL_CAPTURE) {
			ctl_read(c, cl);
			return;
		}
		if (events & (EPOLLHUP | EPOLLERR)) {
			ctl_drop(c, cl);
			return;
		}
	}
	ctl_flush(c, cl);
}

/**
 * ctl_after() - at the end of each loop iteration: send what a capture
 *		 caught
 * @c:		execution context
 */
void ctl_after(struct ctx *c)
{
	int fd = pcap_live_fd(), i;

	if (fd < 0 || !c->ctl)
		return;
	for (i = 0; i < CTL_CLIENTS; i++) {
		struct ctl_client *cl = &c->ctl->cl[i];

		if (cl->phase != CTL_FREE && cl->fd == fd) {
			ctl_flush(c, cl);
			return;
		}
	}
}

/**
 * ctl_timer() - on each tick: cut off slow clients, answer silent
 *		 --metrics ones, let waiting clients in again
 * @c:		execution context
 */
void ctl_timer(struct ctx *c)
{
	struct ctl *t = c->ctl;
	int64_t now = ctl_now_ms(c);
	int i;

	if (!t)
		return;
	for (i = 0; i < CTL_SLOTS; i++) {
		struct ctl_client *cl = &t->cl[i];

		if (cl->phase == CTL_FREE || !cl->deadline ||
		    now < cl->deadline)
			continue;
		if (cl->metrics && cl->phase == CTL_READ && !cl->in_len) {
			/* Sent nothing: the text itself */
			ctl_request(c, cl, true);
			ctl_flush(c, cl);
			continue;
		}
		c->cnt.ctl_refused++;
		warn_rl(c->now.tv_sec, "control socket: client pid %d cut "
			"off: %s", (int)cl->pid, cl->phase == CTL_READ ?
			"no whole request in time" : "not reading its answer");
		if (cl->phase == CTL_READ) {
			/* Its reason, if it still reads */
			cl->out_len = cl->out_off = 0;
			ctl_put(cl, "error: no whole request within %d s\n",
				CTL_READ_TIMEOUT);
			send(cl->fd, cl->out, cl->out_len,
			     MSG_DONTWAIT | MSG_NOSIGNAL);
		}
		ctl_drop(c, cl);
	}
	if ((t->paused[0] || t->paused[1]) && t->second != c->now.tv_sec) {
		t->second = c->now.tv_sec;
		t->accepted = 0;
		ctl_pause(c, false, false);
		ctl_pause(c, true, false);
	}
}

/**
 * ctl_exit() - remove the sockets, as netshim exits
 * @c:		execution context
 */
void ctl_exit(struct ctx *c)
{
	struct ctl *t = c->ctl;
	struct ctl_path *p[2];
	int i;

	if (!t)
		return;
	p[0] = &t->path;
	p[1] = &t->metrics_path;
	for (i = 0; i < 2; i++) {
		if (p[i]->dirfd < 0 || !unlinkat(p[i]->dirfd, p[i]->name, 0) ||
		    errno == ENOENT)
			continue;
		info("%s left in place: %m", p[i]->name);
	}
}
