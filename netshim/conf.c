// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - configuration: the command line, its option table and handlers
 *
 * conf_getopt() applies the options and takes the command or PID after
 * them; conf_parse() (conf_parse.c) builds the rest on that.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "conf.h"
#include "conf_internal.h"
#include "addrparse.h"
#include "fwdspec.h"
#include "log.h"
#include "passwd.h"
#include "resolv.h"

#ifndef NETSHIM_VERSION
#define NETSHIM_VERSION "unknown"
#endif


/* "\x02nshim": locally administered, unicast */
static const uint8_t conf_default_mac[ETH_ALEN_] = {
	0x02, 0x6e, 0x73, 0x68, 0x69, 0x6d
};

/* Every option: X(id, long name, short letter or 0, argument, metavar or
 * NULL, help, handler).  The handler is an expression of c (struct conf),
 * st (struct conf_state), opt (what getopt_long() returned) and arg (the
 * argument), worth 0, or -1 once the error is reported.  An empty help
 * keeps an alias out of --help.  getopt_long()'s tables, the short
 * options, --help and the dispatch (conf_opt()) are all made from it: an
 * option is written here once.
 */
#define CONF_OPTIONS(X)						\
	X(SOCKET, "socket", 's', required_argument, "PATH",		\
	  "UNIX socket for the VMM (default:\n"				\
	  "$XDG_RUNTIME_DIR or /tmp/netshim-N.socket);\n"		\
	  "also --socket-path",						\
	  conf_opt_path('s', c->sock_path, sizeof(c->sock_path), arg))	\
	X(SOCKET_PATH, "socket-path", 0, required_argument, "PATH",	\
	  "",								\
	  conf_opt_path('s', c->sock_path, sizeof(c->sock_path), arg))	\
	X(FD, "fd", 'F', required_argument, "FD",			\
	  "serve the VMM connection already open as FD\n"		\
	  "(a connected stream socket); implies -1",			\
	  conf_opt_fd(c, arg))						\
	X(ONE_OFF, "one-off", '1', no_argument, NULL,			\
	  "exit when the VMM disconnects",				\
	  conf_set(&c->one_off, true))					\
	X(CONNECT, "connect", 0, no_argument, NULL,			\
	  "connect to the socket of -s, where the VMM\n"		\
	  "listens (QEMU server=on, Cloud Hypervisor\n"		\
	  "vhost_mode=server, Dragonball), and again\n"		\
	  "each time it goes away, instead of listening",		\
	  conf_set(&c->vmm_connect, true))				\
	X(CONNECT_TIMEOUT, "connect-timeout", 0, required_argument,	\
	  "SECONDS",							\
	  "with --connect, exit once no VMM listened for\n"		\
	  "SECONDS, 0-86400 (default 60; 0: wait forever)",		\
	  conf_opt_connect_timeout(c, arg))				\
	X(VHOST_USER, "vhost-user", 0, no_argument, NULL,		\
	  "be a vhost-user back-end on the socket (QEMU\n"		\
	  "-netdev vhost-user, Cloud Hypervisor)",			\
	  conf_set(&c->vhost_user, true))				\
	X(REPAIR_PATH, "repair-path", 0, required_argument, "PATH",	\
	  "with --vhost-user, the socket the TCP repair\n"		\
	  "helper (passt-repair, netshim-repair) connects\n"		\
	  "to (default: the socket's path and .repair)",		\
	  conf_opt_path(OPT_REPAIR_PATH, c->repair_path,		\
			sizeof(c->repair_path), arg))			\
	X(MIGRATE_NO_LINGER, "migrate-no-linger", 0, no_argument, NULL, \
	  "close migrated TCP sockets as soon as their\n"		\
	  "state is written, for a destination in the\n"		\
	  "same network namespace",					\
	  conf_set(&c->migrate_no_linger, true))			\
	X(MIGRATE_EXIT, "migrate-exit", 0, no_argument, NULL,		\
	  "exit once the front-end confirms our state\n"		\
	  "reached a live migration's destination",			\
	  conf_set(&c->migrate_exit, true))				\
	X(VIRTIO_FEATURES, "virtio-features", 0, required_argument,	\
	  "SET",							\
	  "with --vhost-user, the virtio features offered:\n"		\
	  "passt (those of every passt with migration, so\n"	\
	  "that the guest can move to passt: the default)\n"	\
	  "or all (checksum and segmentation offloads,\n"		\
	  "indirect descriptors, event index as well)",		\
	  conf_opt_virtio(c, arg))					\
	X(MIGRATE_FORMAT, "migrate-format", 0, required_argument,	\
	  "FORMAT",							\
	  "the device state a migration's source writes:\n"		\
	  "passt (passt's stream, read by passt and\n"		\
	  "netshim: the default) or netshim (UDP and\n"		\
	  "ICMP echo flows go too; netshim reads it)",			\
	  conf_opt_migrate_format(c, arg))				\
	X(UPGRADE, "upgrade", 0, no_argument, NULL,			\
	  "take over from the netshim serving this guest,\n"		\
	  "found at --upgrade-path, instead of starting\n"		\
	  "afresh: every socket and connection is kept,\n"		\
	  "the VMM notices nothing; exits 1 if refused",		\
	  conf_set(&c->upgrade, true))					\
	X(UPGRADE_PATH, "upgrade-path", 0, required_argument, "PATH",	\
	  "the UNIX socket a new netshim takes over from\n"		\
	  "this one at (default: the socket's path and\n"		\
	  ".upgrade; in namespace mode and with --fd,\n"		\
	  "none unless given)",						\
	  conf_opt_path(OPT_UPGRADE_PATH, c->upgrade_path,		\
			sizeof(c->upgrade_path), arg))			\
	X(PRINT_CAPS, "print-capabilities", 0, no_argument, NULL,	\
	  "print the vhost-user back-end's capabilities\n"		\
	  "as JSON and exit",						\
	  conf_print_caps())						\
	X(PID, "pid", 'P', required_argument, "FILE",			\
	  "write the process ID to FILE",				\
	  conf_opt_path(opt, c->pid_file, sizeof(c->pid_file), arg))	\
	X(FOREGROUND, "foreground", 'f', no_argument, NULL,		\
	  "do not daemonise; log to stderr",				\
	  conf_set(&c->foreground, true))				\
	X(QUIET, "quiet", 'q', no_argument, NULL,			\
	  "log warnings and errors only",				\
	  conf_set(&c->quiet, true))					\
	X(DEBUG, "debug", 'd', no_argument, NULL,			\
	  "log debug messages too",					\
	  conf_set(&c->debug, true))					\
	X(TRACE, "trace", 0, no_argument, NULL,				\
	  "log every frame too (implies --debug)",			\
	  conf_opt_trace(c))						\
	X(STDERR, "stderr", 'e', no_argument, NULL,			\
	  "log to stderr, also once in the background",			\
	  conf_set(&c->log_stderr, true))				\
	X(LOG_FILE, "log-file", 'l', required_argument, "FILE",		\
	  "log to FILE instead of stderr or syslog",			\
	  conf_opt_path(opt, c->log_file, sizeof(c->log_file), arg))	\
	X(LOG_SIZE, "log-size", 0, required_argument, "BYTES",		\
	  "drop the oldest lines of the log file beyond\n"		\
	  "BYTES (default 1 MiB)",					\
	  conf_uint_opt(opt, arg, 4096, UINT_MAX, &c->log_size))	\
	X(PCAP, "pcap", 'p', required_argument, "FILE",			\
	  "capture guest frames to FILE (libpcap)",			\
	  conf_opt_path(opt, c->pcap_file, sizeof(c->pcap_file), arg))	\
	X(CONF_PATH, "conf-path", 'c', required_argument, "PATH",	\
	  "control socket (owner only): forwarding changed\n"	\
	  "at run time by passt's pesto or netshim-ctl;\n"		\
	  "counters, flows and captures for netshim-ctl",		\
	  conf_opt_path(opt, c->ctl_path, sizeof(c->ctl_path), arg))	\
	X(METRICS, "metrics", 0, required_argument, "PATH",		\
	  "UNIX socket serving the counters in Prometheus'\n"		\
	  "text format, to a read or an HTTP GET",			\
	  conf_opt_path(opt, c->metrics_path, sizeof(c->metrics_path),	\
			arg))						\
	X(RUNAS, "runas", 0, required_argument, "UID[:GID]",		\
	  "run as this user and group (numbers or names;\n"		\
	  "started as root, default: nobody)",				\
	  conf_opt_runas(c, arg))					\
	X(INTERFACE, "interface", 'i', required_argument, "NAME",	\
	  "template interface (default: default route's)",		\
	  conf_opt_path(opt, c->ifname, sizeof(c->ifname), arg))	\
	X(ADDRESS, "address", 'a', required_argument, "ADDR[/LEN]",	\
	  "guest address, once per family",				\
	  conf_opt_address(c, arg))					\
	X(NETMASK, "netmask", 'n', required_argument, "MASK",		\
	  "IPv4 netmask, dotted or prefix length",			\
	  conf_opt_netmask(c, arg))					\
	X(GATEWAY, "gateway", 'g', required_argument, "ADDR",		\
	  "gateway, once per family",					\
	  conf_opt_gateway(c, arg))					\
	X(DNS, "dns", 'D', required_argument, "ADDR",			\
	  "DNS server, repeatable; \"none\": no DNS",			\
	  conf_opt_dns(c, st, arg))					\
	X(SEARCH, "search", 'S', required_argument, "LIST",		\
	  "search domains (spaces or commas); \"none\"",		\
	  conf_opt_search(c, st, arg))					\
	X(NO_DHCP_DNS, "no-dhcp-dns", 0, no_argument, NULL,		\
	  "hand no DNS servers to the guest",				\
	  conf_hand(&st->dhcp_dns, false))				\
	X(DHCP_DNS, "dhcp-dns", 0, no_argument, NULL,			\
	  "hand them (the default for a VM; a namespace\n"		\
	  "shares the pod's resolv.conf, so is handed\n"		\
	  "none without it, as pasta)",					\
	  conf_hand(&st->dhcp_dns, true))				\
	X(NO_DHCP_SEARCH, "no-dhcp-search", 0, no_argument, NULL,	\
	  "hand no search domains to the guest",			\
	  conf_hand(&st->dhcp_search, false))				\
	X(DHCP_SEARCH, "dhcp-search", 0, no_argument, NULL,		\
	  "hand them (as --dhcp-dns)",					\
	  conf_hand(&st->dhcp_search, true))				\
	X(HOSTNAME, "hostname", 'H', required_argument, "NAME",		\
	  "host name for the guest (DHCP option 12)",			\
	  conf_opt_dnsname(c->hostname, opt, arg))			\
	X(FQDN, "fqdn", 0, required_argument, "NAME",			\
	  "FQDN for the guest (DHCP option 81, DHCPv6\n"		\
	  "option 39)",							\
	  conf_opt_dnsname(c->fqdn, opt, arg))				\
	X(OUTBOUND, "outbound", 'o', required_argument, "ADDR",		\
	  "source address of outbound sockets, once per\n"		\
	  "family",							\
	  conf_opt_outbound(c, arg))					\
	X(OUT_IF4, "outbound-if4", 0, required_argument, "NAME",	\
	  "bind IPv4 outbound sockets to interface NAME",		\
	  conf_opt_ifname(opt, c->out_if4, arg))			\
	X(OUT_IF6, "outbound-if6", 0, required_argument, "NAME",	\
	  "bind IPv6 outbound sockets to interface NAME",		\
	  conf_opt_ifname(opt, c->out_if6, arg))			\
	X(MAC_ADDR, "mac-addr", 'M', required_argument, "MAC",		\
	  "the guest's MAC address",					\
	  conf_opt_mac(c, opt, arg))					\
	X(MTU, "mtu", 'm', required_argument, "MTU",			\
	  "guest MTU, 68-65520 (65520; namespace: the pod's)",		\
	  conf_uint_opt(opt, arg, MTU_MIN, MTU_MAX, &c->mtu))		\
	X(TCP_PORTS, "tcp-ports", 't', required_argument, "SPEC",	\
	  "forward inbound TCP ports to the guest",			\
	  fwdspec_parse(&c->tcp_fwd, arg))				\
	X(UDP_PORTS, "udp-ports", 'u', required_argument, "SPEC",	\
	  "forward inbound UDP ports to the guest\n"			\
	  "SPEC: none | [ADDR][%IF]/ then a list of\n"		\
	  "PORT[-PORT][:[TOADDR/]PORT[-PORT]],\n"			\
	  "PORT[-PORT]:TOADDR, all[:TOADDR], ~PORT[-PORT];\n"	\
	  "TOADDR: a guest address not its own;\n"			\
	  "or auto: in namespace mode, the ports the\n"			\
	  "namespace listens on; for a VM (-t only,\n"			\
	  "with eBPF sk_lookup), every port no pod\n"			\
	  "process listens on",						\
	  fwdspec_parse(&c->udp_fwd, arg))				\
	X(CHROOT_FALLBACK, "chroot-fallback", 0, no_argument, NULL,	\
	  "where the root cannot be pivoted (initramfs),\n"		\
	  "chroot() into the empty one instead",			\
	  conf_set(&c->chroot_fallback, true))				\
	X(FREEBIND, "freebind", 0, no_argument, NULL,			\
	  "forwarded ports may bind addresses the pod\n"		\
	  "does not have (yet)",					\
	  conf_set(&c->freebind, true))					\
	X(IPV4_ONLY, "ipv4-only", '4', no_argument, NULL,		\
	  "IPv4 only",							\
	  conf_set(&st->v4_only, true))					\
	X(IPV6_ONLY, "ipv6-only", '6', no_argument, NULL,		\
	  "IPv6 only",							\
	  conf_set(&st->v6_only, true))					\
	X(MAP_HOST_LO, "map-host-loopback", 0, required_argument, "ADDR", \
	  "guest traffic to ADDR goes to the pod's\n"			\
	  "loopback (default: nothing mapped); \"none\"",		\
	  conf_opt_map_lo(c, arg))					\
	X(MAP_GW, "map-gw", 0, no_argument, NULL,			\
	  "map the gateway so (IPv4, IPv6, link-local too)",		\
	  conf_set(&st->map_gw, true))					\
	X(NO_MAP_GW, "no-map-gw", 0, no_argument, NULL,			\
	  "the gateway is a router (the default)",			\
	  conf_set(&st->map_gw, false))					\
	X(NO_TCP, "no-tcp", 0, no_argument, NULL,			\
	  "drop the guest's TCP, forward no TCP port",			\
	  conf_set(&c->no_tcp, true))					\
	X(NO_UDP, "no-udp", 0, no_argument, NULL,			\
	  "drop the guest's UDP (not DHCP), forward no\n"		\
	  "UDP port",							\
	  conf_set(&c->no_udp, true))					\
	X(NO_ICMP, "no-icmp", 0, no_argument, NULL,			\
	  "drop the guest's echo requests",				\
	  conf_set(&c->no_icmp, true))					\
	X(NO_DHCP, "no-dhcp", 0, no_argument, NULL,			\
	  "no DHCPv4 server",						\
	  conf_set(&c->no_dhcp, true))					\
	X(NO_DHCPV6, "no-dhcpv6", 0, no_argument, NULL,			\
	  "no DHCPv6 server",						\
	  conf_set(&c->no_dhcpv6, true))				\
	X(NO_NDP, "no-ndp", 0, no_argument, NULL,			\
	  "no NDP (neighbour and router advertisements)",		\
	  conf_set(&c->no_ndp, true))					\
	X(NO_RA, "no-ra", 0, no_argument, NULL,				\
	  "no router advertisements",					\
	  conf_set(&c->no_ra, true))					\
	X(NO_PEEK_OFF, "no-peek-offset", 0, no_argument, NULL,		\
	  "read TCP data as kernels before 6.9 need to\n"		\
	  "(slower; for testing that code path)",			\
	  conf_set(&c->no_peek_off, true))				\
	X(MAX_TCP, "max-tcp", 0, required_argument, "N",		\
	  "TCP connections, 1-1048576 (default 65536)",			\
	  conf_uint_opt(opt, arg, 1, 1048576, &c->max_tcp))		\
	X(MAX_FLOWS, "max-flows", 0, required_argument, "N",		\
	  "UDP and ICMP flows, 1-1048576 (default 16384)",		\
	  conf_uint_opt(opt, arg, 1, 1048576, &c->max_flows))		\
	X(UDP_TIMEOUT, "udp-timeout", 0, required_argument, "SECONDS",	\
	  "idle UDP flow timeout, 1-86400 (default 180)",		\
	  conf_uint_opt(opt, arg, 1, 86400, &c->udp_timeout))		\
	X(RA_INTERVAL, "ra-interval", 0, required_argument, "SECONDS",	\
	  "router advertisement interval, 4-1800\n"			\
	  "(default 60)",						\
	  conf_uint_opt(opt, arg, 4, 1800, &c->ra_interval))		\
	X(BPF, "bpf", 0, required_argument, "MODE",			\
	  "eBPF programs: auto (load them where the\n"			\
	  "kernel and privileges allow, the default),\n"		\
	  "off, or require (exit if they cannot load)",			\
	  conf_opt_bpf(c, arg))						\
	X(IO_URING, "io-uring", 0, required_argument, "MODE",		\
	  "the loop's io_uring: off (epoll alone, the\n"		\
	  "default), auto (where the kernel and seccomp\n"		\
	  "allow), or require (exit if it cannot)",			\
	  conf_opt_io_uring(c, arg))					\
	X(NETNS, "netns", 0, required_argument, "PATH|NAME|PID",	\
	  "serve this network namespace: a file such as\n"		\
	  "/run/netns/NAME, a NAME there (as ip-netns),\n"		\
	  "or a process's",						\
	  conf_opt_netns(c, arg))					\
	X(NO_NETNS_QUIT, "no-netns-quit", 0, no_argument, NULL,	\
	  "with --netns, keep serving once the namespace\n"		\
	  "is gone (by default netshim exits when its\n"		\
	  "file is removed or its process ends)",			\
	  conf_set(&c->no_netns_quit, true))				\
	X(USERNS, "userns", 0, required_argument, "PATH",		\
	  "with --netns, the user namespace to join\n"			\
	  "(default: the one owning the network\n"			\
	  "namespace, where it is not ours)",				\
	  conf_opt_path(opt, c->userns, sizeof(c->userns), arg))	\
	X(NETNS_ONLY, "netns-only", 0, no_argument, NULL,		\
	  "with --netns, join the network namespace alone,\n"		\
	  "never the user namespace owning it",				\
	  conf_set(&c->netns_only, true))				\
	X(HOST_LO_TO_NS_LO, "host-lo-to-ns-lo", 0, no_argument, NULL,	\
	  "namespace mode: connections and datagrams to\n"		\
	  "a -t or -u port on the pod's loopback reach\n"		\
	  "the namespace's loopback (default: its own\n"		\
	  "address, so that what listens on its loopback\n"		\
	  "alone stays private, as pasta)",				\
	  conf_set(&c->host_lo_to_ns_lo, true))				\
	X(CONFIG_NET, "config-net", 0, no_argument, NULL,		\
	  "namespace mode: set the tap up with the pod's\n"		\
	  "addresses, routes and MTU (default: leave it\n"		\
	  "down, to the namespace's own DHCP, DHCPv6 and\n"		\
	  "SLAAC, as pasta)",						\
	  conf_set(&c->config_net, true))				\
	X(NO_COPY_ROUTES, "no-copy-routes", 0, no_argument, NULL,	\
	  "with --config-net, the default route alone, not\n"		\
	  "every route through the template (so does -g,\n"		\
	  "for its family)",						\
	  conf_set(&st->no_copy_routes, true))				\
	X(NO_COPY_ADDRS, "no-copy-addrs", 0, no_argument, NULL,	\
	  "with --config-net, one address, not every one\n"		\
	  "of the template (so does -a, for its family)",		\
	  conf_set(&st->no_copy_addrs, true))				\
	X(NS_MAC_ADDR, "ns-mac-addr", 0, required_argument, "MAC",	\
	  "namespace mode: the tap's MAC address (as -M)",		\
	  conf_opt_mac(c, opt, arg))					\
	X(NS_IFNAME, "ns-ifname", 'I', required_argument, "NAME",	\
	  "tap device in the namespace (default: the\n"			\
	  "template interface's name)",					\
	  conf_opt_path(opt, c->ns_ifname, sizeof(c->ns_ifname), arg))	\
	X(TCP_NS, "tcp-ns", 'T', required_argument, "SPEC",		\
	  "forward TCP ports of the namespace's loopback\n"		\
	  "to the pod's loopback (a list of ports, as -t,\n"		\
	  "or auto: the ports the pod listens on)",			\
	  fwdspec_parse(&c->tcp_ns_fwd, arg))				\
	X(UDP_NS, "udp-ns", 'U', required_argument, "SPEC",		\
	  "UDP likewise, datagrams relayed socket to\n"			\
	  "socket",							\
	  fwdspec_parse(&c->udp_ns_fwd, arg))				\
	X(HELP, "help", 'h', no_argument, NULL,				\
	  "show this help and exit",					\
	  conf_print_usage())						\
	X(VERSION, "version", 0, no_argument, NULL,			\
	  "show the version and exit",					\
	  conf_print_version())

#define CONF_OPT_ENUM(id, name, shortopt, arg, metavar, help, handler)	\
	OPT_##id,
enum {
	OPT_FIRST = 255,	/* above every short option's letter */
	CONF_OPTIONS(CONF_OPT_ENUM)
	OPT_REFUSED,		/* a long option of conf_refused[] */
};
#undef CONF_OPT_ENUM

/* What getopt_long() returns for an option: its letter, if it has one */
#define CONF_OPT_VAL(id, shortopt)	((shortopt) ? (shortopt) : OPT_##id)

#define NOT_YET_NS	"not supported yet in netshim's namespace mode"

/* passt's options netshim refuses: long name, argument, short option (0
 * for none), why.  doc/passt-options.md explains every one.  To support
 * one, move it out of this table and give it a case of its own.
 */
#define CONF_REFUSED(X)							\
	X("stats", required_argument, 0,				\
	  "not supported: netshim logs its counters on SIGUSR1 and at exit") \
	X("splice-only", no_argument, 0, NOT_YET_NS)			\
	X("dns-forward", required_argument, 0,				\
	  "not supported: netshim does not redirect DNS; give the guest " \
	  "the pod's resolvers with -D")				\
	X("dns-host", required_argument, 0,				\
	  "not supported: netshim does not redirect DNS; give the guest " \
	  "the pod's resolvers with -D")				\
	X("map-guest-addr", required_argument, 0,			\
	  "not supported: guest traffic to the pod's own address is not " \
	  "translated")							\
	X("no-splice", no_argument, 0, NOT_YET_NS)

/**
 * struct conf_refusal - a passt option netshim refuses
 * @name:	long name
 * @shortopt:	short option, 0 if none
 * @why:	the reason, for the message
 */
struct conf_refusal {
	const char *name;
	int shortopt;
	const char *why;
};

#define CONF_REFUSAL(name, arg, shortopt, why)	{ name, shortopt, why },
static const struct conf_refusal conf_refused[] = {
	CONF_REFUSED(CONF_REFUSAL)
};

#define CONF_REFUSED_N	((int)(sizeof(conf_refused) / sizeof(conf_refused[0])))

#define CONF_LONG_OPT(id, name, shortopt, arg, metavar, help, handler)	\
	{ name, arg, NULL, CONF_OPT_VAL(id, shortopt) },
#define CONF_REFUSED_OPT(name, arg, shortopt, why)			\
	{ name, arg, NULL, shortopt ? shortopt : OPT_REFUSED },
static const struct option conf_long_opts[] = {
	CONF_OPTIONS(CONF_LONG_OPT)
	CONF_REFUSED(CONF_REFUSED_OPT)
	{ NULL, 0, NULL, 0 },
};
#undef CONF_LONG_OPT
#undef CONF_REFUSED_OPT

#define CONF_LONG_OPTS_N						\
	(sizeof(conf_long_opts) / sizeof(conf_long_opts[0]))

/**
 * struct conf_help - one option's lines of --help
 * @name:	long name
 * @shortopt:	short option, 0 if none
 * @metavar:	what its argument stands for, NULL if it takes none
 * @help:	the text, lines apart by newlines; empty for an alias
 */
struct conf_help {
	const char *name;
	int shortopt;
	const char *metavar;
	const char *help;
};

#define CONF_HELP(id, name, shortopt, arg, metavar, help, handler)	\
	{ name, shortopt, metavar, help },
static const struct conf_help conf_help[] = {
	CONF_OPTIONS(CONF_HELP)
};
#undef CONF_HELP

/**
 * conf_short_opts() - getopt_long()'s short options, from the long ones
 * @out:	filled in: a ':' (missing arguments told apart), then each
 *		letter, with a ':' if it takes an argument
 */
static void conf_short_opts(char out[static 2 * CONF_LONG_OPTS_N + 3])
{
	const struct option *o;
	size_t n = 0;

	/* '+': options end at the first other argument, which begins a
	 * command and its own options, as pasta's; ':': a missing argument
	 * is told apart from an unknown option
	 */
	out[n++] = '+';
	out[n++] = ':';
	for (o = conf_long_opts; o->name; o++) {
		if (o->val >= OPT_FIRST)
			continue;
		out[n++] = (char)o->val;
		if (o->has_arg == required_argument)
			out[n++] = ':';
	}
	out[n] = '\0';
}

/* Column where the help text of every option starts */
#define CONF_HELP_COL		28

/**
 * conf_usage_opt() - print one option's lines of --help
 * @f:		where
 * @h:		the option
 *
 * Options and their arguments take the first column; the text starts
 * on the same line if they leave it room, else on the next.
 */
static void conf_usage_opt(FILE *f, const struct conf_help *h)
{
	const char *line = h->help, *end;
	int len;

	if (h->shortopt)
		len = fprintf(f, "  -%c, --%s", h->shortopt, h->name);
	else
		len = fprintf(f, "      --%s", h->name);
	if (h->metavar)
		len += fprintf(f, " %s", h->metavar);
	if (len >= CONF_HELP_COL) {
		fputc('\n', f);
		len = 0;
	}
	for (;;) {
		end = strchr(line, '\n');
		fprintf(f, "%*s%.*s\n", CONF_HELP_COL - len, "",
			end ? (int)(end - line) : (int)strlen(line), line);
		if (!end)
			break;
		line = end + 1;
		len = 0;
	}
}

/**
 * conf_usage() - print the command line summary to @f
 * @f:		stdout for --help
 */
static void conf_usage(FILE *f)
{
	size_t i;

	fputs(
"Usage: netshim [OPTION]...\n"
"       netshim [OPTION]... --netns PATH|NAME|PID\n"
"       netshim [OPTION]... PID\n"
"       netshim [OPTION]... [--] COMMAND [ARG]...\n"
"Userspace network backend for a virtual machine in a pod: connects to\n"
"the VMM over a UNIX socket (QEMU -netdev stream) and maps guest traffic\n"
"to sockets of the pod.  In namespace mode it serves a network namespace\n"
"through a tap device instead: one it joins, or a new one for COMMAND,\n"
"or for the user's shell when options of namespace mode alone (such as\n"
"--config-net) are given without a command, as pasta.\n"
"\n", f);
	for (i = 0; i < sizeof(conf_help) / sizeof(conf_help[0]); i++) {
		if (*conf_help[i].help)
			conf_usage_opt(f, &conf_help[i]);
	}
	fputs(
"\n"
"passt's other options are refused with the reason: see netshim(1) and\n"
"doc/passt-options.md.\n", f);
}

/**
 * conf_opt_name() - long name of an option, for messages
 * @val:	option value, as returned by getopt_long()
 *
 * Return: the long name, or "?" if unknown
 */
static const char *conf_opt_name(int val)
{
	const struct option *o;

	for (o = conf_long_opts; o->name; o++) {
		if (o->val == val)
			return o->name;
	}
	return "?";
}

/**
 * conf_bad() - report an invalid option value
 * @val:	option value, as returned by getopt_long()
 * @arg:	the value given
 * @why:	the reason
 *
 * Return: -1
 */
static int conf_bad(int val, const char *arg, const char *why)
{
	fprintf(stderr, "netshim: invalid --%s value '%s': %s\n",
		conf_opt_name(val), arg, why);
	return -1;
}

/**
 * conf_uint() - parse a decimal number strictly
 * @arg:	text: digits only, no sign, no spaces, no suffix
 * @min:	smallest value accepted
 * @max:	largest value accepted
 * @out:	value, set on success
 *
 * Return: NULL on success, else why @arg is refused
 */
static const char *conf_uint(const char *arg, unsigned long min,
			     unsigned long max, unsigned long *out)
{
	unsigned long v;
	char *end;

	if (!isdigit((unsigned char)*arg))
		return "not a number";
	errno = 0;
	v = strtoul(arg, &end, 10);
	if (*end)
		return "not a number";
	if (errno == ERANGE || v < min || v > max)
		return "out of range";
	*out = v;
	return NULL;
}

/**
 * conf_uint_opt() - parse a numeric option into an unsigned int
 * @val:	option value, for the message
 * @arg:	text
 * @min:	smallest value accepted
 * @max:	largest value accepted
 * @out:	value, set on success
 *
 * Return: 0 on success, -1 on error (reported)
 */
static int conf_uint_opt(int val, const char *arg, unsigned long min,
			 unsigned long max, unsigned int *out)
{
	char why[64];
	unsigned long v;
	const char *e;

	e = conf_uint(arg, min, max, &v);
	if (e) {
		snprintf(why, sizeof(why), "%s (%lu-%lu)", e, min, max);
		return conf_bad(val, arg, why);
	}
	*out = v;
	return 0;
}

/**
 * conf_netmask_parse() - parse an IPv4 netmask
 * @arg:	dotted quad with contiguous ones ("255.255.255.0"), or a
 *		prefix length 0-32
 * @prefix:	prefix length, set on success
 *
 * Return: 0 on success, -1 if @arg is neither
 */
int conf_netmask_parse(const char *arg, int *prefix)
{
	struct in_addr a;
	unsigned long v;
	uint32_t host;

	if (!conf_uint(arg, 0, 32, &v)) {
		*prefix = v;
		return 0;
	}
	if (inet_pton(AF_INET, arg, &a) != 1)
		return -1;

	/* The host part must be a run of ones: ~mask + 1 a power of two */
	host = ~ntohl(a.s_addr);
	if (host & (host + 1))
		return -1;
	*prefix = 32 - __builtin_popcount(host);
	return 0;
}

/**
 * conf_opt_address() - -a: guest address, with an optional prefix length
 * @c:		configuration
 * @arg:	ADDR or ADDR/LEN
 *
 * Return: 0 on success, -1 on error (reported)
 */
static int conf_opt_address(struct conf *c, const char *arg)
{
	char buf[INET6_ADDRSTRLEN + 4], *slash;
	struct in6_addr a6;
	struct in_addr a4;
	unsigned long len;
	const char *e;
	int af;

	if (strlen(arg) >= sizeof(buf))
		return conf_bad('a', arg, "too long");
	strcpy(buf, arg);
	slash = strchr(buf, '/');
	if (slash)
		*slash++ = '\0';

	af = addr_parse_unicast(buf, &a4, &a6, &e);
	if (!e && af == AF_INET6 && IN6_IS_ADDR_LINKLOCAL(&a6))
		e = "link-local: give a global address";
	if (!e && (af == AF_INET ? a4.s_addr == htonl(INADDR_LOOPBACK) :
				   IN6_IS_ADDR_LOOPBACK(&a6)))
		e = "loopback address";
	if (!e && slash && conf_uint(slash, 0, af == AF_INET ? 32 : 128, &len))
		e = af == AF_INET ? "prefix length must be 0-32" :
				    "prefix length must be 0-128";
	if (e)
		return conf_bad('a', arg, e);

	if (af == AF_INET) {
		c->addr4 = a4;
		if (slash)
			c->prefix4 = len;
	} else {
		c->addr6 = a6;
		if (slash)
			c->prefix6 = len;
	}
	return 0;
}

/**
 * conf_opt_gateway() - -g: gateway of either family
 * @c:		configuration
 * @arg:	address
 *
 * Return: 0 on success, -1 on error (reported)
 */
static int conf_opt_gateway(struct conf *c, const char *arg)
{
	struct in6_addr a6;
	struct in_addr a4;
	const char *e;
	int af;

	af = addr_parse_unicast(arg, &a4, &a6, &e);
	if (!af)
		return conf_bad('g', arg, e);
	if (af == AF_INET)
		c->gw4 = a4;
	else
		c->gw6 = a6;
	return 0;
}

/**
 * conf_opt_dns() - -D: add a DNS server, or "none"
 * @c:		configuration
 * @st:		command line state: the first -D drops resolv.conf's
 * @arg:	address or "none"
 *
 * Return: 0 on success, -1 on error (reported)
 */
static int conf_opt_dns(struct conf *c, struct conf_state *st,
			const char *arg)
{
	struct in6_addr a6;
	struct in_addr a4;
	const char *e;
	int af;

	st->dns = true;
	if (!strcmp(arg, "none")) {
		c->n_dns4 = c->n_dns6 = 0;
		return 0;
	}
	af = addr_parse_unicast(arg, &a4, &a6, &e);
	if (!e && addr_is_loopback(af, &a4, &a6))
		e = "loopback: the guest cannot reach the pod's loopback";
	if (e)
		return conf_bad('D', arg, e);
	if (resolv_add_dns(c, af, &a4, &a6))
		return conf_bad('D', arg, "too many servers of this family");
	return 0;
}

/**
 * conf_opt_search() - -S: replace the search domains
 * @c:		configuration
 * @st:		command line state: resolv.conf's domains are dropped
 * @arg:	domains separated by spaces or commas, or "none"
 *
 * Return: 0 on success, -1 on error (reported)
 */
static int conf_opt_search(struct conf *c, struct conf_state *st,
			   const char *arg)
{
	const char *p = arg;
	size_t len;

	st->search = true;
	c->n_search = 0;
	if (!strcmp(arg, "none"))
		return 0;

	for (p += strspn(p, " ,"); *p; p += strspn(p, " ,")) {
		len = strcspn(p, " ,");
		if (len > CONF_SEARCH_LEN)
			return conf_bad('S', arg, "domain name too long");
		if (c->n_search >= CONF_MAX_SEARCH)
			return conf_bad('S', arg, "too many domains");
		memcpy(c->search[c->n_search], p, len);
		c->search[c->n_search++][len] = '\0';
		p += len;
	}
	if (!c->n_search)
		return conf_bad('S', arg, "no domain given");
	return 0;
}

/**
 * conf_mac_parse() - parse a MAC address, xx:xx:xx:xx:xx:xx
 * @arg:	text
 * @mac:	address, set on success
 *
 * Return: NULL on success, else the reason
 */
static const char *conf_mac_parse(const char *arg, uint8_t *mac)
{
	static const char *const form =
		"expected six hexadecimal bytes separated by colons";
	uint8_t m[ETH_ALEN_];
	int i;

	if (strlen(arg) != ETH_ALEN_ * 3 - 1)
		return form;
	for (i = 0; i < ETH_ALEN_; i++) {
		const char *p = arg + i * 3;

		if (!isxdigit((unsigned char)p[0]) ||
		    !isxdigit((unsigned char)p[1]) ||
		    (i < ETH_ALEN_ - 1 && p[2] != ':'))
			return form;
		m[i] = strtoul((char[3]){ p[0], p[1], '\0' }, NULL, 16);
	}
	if (m[0] & 1)
		return "multicast address";
	if (!(m[0] | m[1] | m[2] | m[3] | m[4] | m[5]))
		return "all-zero address";
	memcpy(mac, m, ETH_ALEN_);
	return NULL;
}

/**
 * conf_runas_id() - resolve a user or group given by number or name
 * @s:		number or name
 * @group:	@s names a group, not a user
 * @id:		numeric ID, set on success
 * @pw_gid:	for a user known to the passwd database: its group, else
 *		left alone
 *
 * Return: 0 on success, -1 if @s is neither a valid number nor a name
 */
static int conf_runas_id(const char *s, bool group, unsigned int *id,
			 unsigned int *pw_gid)
{
	unsigned long v;

	if (!conf_uint(s, 0, UINT_MAX - 1, &v)) {
		*id = v;
		if (!group)
			passwd_uid_group(v, pw_gid);
		return 0;
	}
	if (group)
		return passwd_group(s, id);
	return passwd_user(s, id, pw_gid);
}

/**
 * conf_opt_runas() - --runas UID[:GID]
 * @c:		configuration
 * @arg:	user and optional group, numbers or names
 *
 * Without a group, the user's group from the passwd database is used, or
 * a group of the same number as the user for users it does not know.
 *
 * Return: 0 on success, -1 on error (reported)
 */
static int conf_opt_runas(struct conf *c, const char *arg)
{
	char buf[256], *colon;
	unsigned int uid, gid = UINT_MAX;

	if (strlen(arg) >= sizeof(buf))
		return conf_bad(OPT_RUNAS, arg, "too long");
	strcpy(buf, arg);
	colon = strchr(buf, ':');
	if (colon)
		*colon++ = '\0';

	if (!*buf || conf_runas_id(buf, false, &uid, &gid))
		return conf_bad(OPT_RUNAS, arg, PASSWD_FILES_ONLY ?
				"unknown user (" PASSWD_STATIC_HINT ")" :
				"unknown user");
	if (colon && (!*colon || conf_runas_id(colon, true, &gid, NULL)))
		return conf_bad(OPT_RUNAS, arg, PASSWD_FILES_ONLY ?
				"unknown group (" PASSWD_STATIC_HINT ")" :
				"unknown group");

	c->uid = uid;
	c->gid = gid == UINT_MAX ? uid : gid;
	c->runas_set = true;
	return 0;
}

/**
 * conf_opt_map_lo() - --map-host-loopback ADDR
 * @c:		configuration
 * @arg:	address
 *
 * Return: 0 on success, -1 on error (reported)
 */
static int conf_opt_map_lo(struct conf *c, const char *arg)
{
	struct in6_addr a6;
	struct in_addr a4;
	const char *e;
	int af;

	if (!strcmp(arg, "none")) {
		c->map_host_lo4 = c->map_host_lo6 = false;
		return 0;
	}
	af = addr_parse_unicast(arg, &a4, &a6, &e);
	if (!af)
		return conf_bad(OPT_MAP_HOST_LO, arg, e);
	if (af == AF_INET) {
		c->host_lo4 = a4;
		c->map_host_lo4 = true;
	} else {
		c->host_lo6 = a6;
		c->map_host_lo6 = true;
	}
	return 0;
}

/**
 * conf_name_check() - tell why a host name or FQDN cannot be handed out
 * @arg:	name: labels of letters, digits, '-' and '_', separated by
 *		dots, with an optional final dot
 *
 * The DHCP options carry at most 255 bytes, and the FQDN options carry
 * the name as DNS labels (RFC 1035: 63 bytes a label, 255 in all).
 *
 * Return: NULL if @arg is usable, else the reason
 */
static const char *conf_name_check(const char *arg)
{
	size_t len = strlen(arg), label = 0;
	const char *p;

	if (!len)
		return "empty name";
	if (len > CONF_NAME_LEN)
		return "longer than 253 characters";
	for (p = arg; *p; p++) {
		if (*p == '.') {
			if (!label)
				return "empty label";
			label = 0;
			continue;
		}
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_')
			return "letters, digits, '-', '_' and dots only";
		if (++label > 63)
			return "label longer than 63 characters";
	}
	return NULL;
}

/**
 * conf_opt_dnsname() - -H and --fqdn: a name handed to the guest
 * @dst:	c->hostname or c->fqdn
 * @opt:	option value, for the message
 * @arg:	the name
 *
 * Return: 0 on success, -1 on error (reported)
 */
static int conf_opt_dnsname(char *dst, int opt, const char *arg)
{
	const char *e = conf_name_check(arg);

	if (e)
		return conf_bad(opt, arg, e);
	strcpy(dst, arg);
	return 0;
}

/**
 * conf_opt_fd() - -F: serve a VMM connection that is already open
 * @c:		configuration
 * @arg:	file descriptor number
 *
 * QEMU's -netdev passt hands its back-end one end of a socketpair: it
 * must be there, and a stream socket, or every frame would be lost.  A
 * listening socket is refused too: netshim would wait on it as if the VMM
 * were there while front-ends queue up unaccepted (passt's --fd is a
 * connected socket as well).
 *
 * Return: 0 on success, -1 on error (reported)
 */
static int conf_opt_fd(struct conf *c, const char *arg)
{
	int type, listening = 0, fd;
	socklen_t sl = sizeof(type), ll = sizeof(listening);
	unsigned long v;

	if (conf_uint(arg, 0, INT_MAX, &v))
		return conf_bad('F', arg, "not a file descriptor number");
	fd = v;
	/* Daemonising puts /dev/null on the standard streams */
	if (fd <= STDERR_FILENO)
		return conf_bad('F', arg, "0-2 are the standard streams");
	if (fcntl(fd, F_GETFD) < 0)
		return conf_bad('F', arg, "not an open file descriptor");
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &sl) ||
	    type != SOCK_STREAM)
		return conf_bad('F', arg, "not a stream socket");
	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &ll) ||
	    listening)
		return conf_bad('F', arg,
				"a listening socket: give a connected one, or -s PATH to listen");
	c->vmm_fd = fd;
	return 0;
}

/**
 * conf_opt_outbound() - -o: source address of outbound sockets
 * @c:		configuration
 * @arg:	IPv4 or IPv6 address, once per family
 *
 * Return: 0 on success, -1 on error (reported)
 */
static int conf_opt_outbound(struct conf *c, const char *arg)
{
	struct in6_addr a6;
	struct in_addr a4;
	const char *e;
	int af;

	af = addr_parse_unicast(arg, &a4, &a6, &e);
	if (!e && addr_is_loopback(af, &a4, &a6))
		e = "loopback: nothing outside the pod could answer";
	if (!e && af == AF_INET6 && IN6_IS_ADDR_LINKLOCAL(&a6))
		e = "link-local: give a global address";
	if (e)
		return conf_bad('o', arg, e);
	if (af == AF_INET) {
		c->out4 = a4;
		c->out4_set = true;
	} else {
		c->out6 = a6;
		c->out6_set = true;
	}
	return 0;
}

/**
 * conf_opt_ifname() - an interface that must exist now
 * @opt:	option value, for the message
 * @dst:	where the name goes, IF_NAMESIZE bytes
 * @arg:	interface name
 *
 * Return: 0 on success, -1 on error (reported)
 */
static int conf_opt_ifname(int opt, char *dst, const char *arg)
{
	if (!*arg || strlen(arg) >= IF_NAMESIZE)
		return conf_bad(opt, arg, "not an interface name");
	if (!if_nametoindex(arg))
		return conf_bad(opt, arg, "no such interface");
	strcpy(dst, arg);
	return 0;
}

/**
 * conf_refuse() - report a passt option netshim refuses, and why
 * @opt:	option value, as returned by getopt_long()
 * @longindex:	index of the long option in conf_long_opts, or -1
 *
 * Return: true if @opt is one of conf_refused[] (reported)
 */
static bool conf_refuse(int opt, int longindex)
{
	const char *name = NULL;
	int i;

	if (opt == OPT_REFUSED && longindex >= 0)
		name = conf_long_opts[longindex].name;
	for (i = 0; i < CONF_REFUSED_N; i++) {
		const struct conf_refusal *r = &conf_refused[i];

		if ((name && !strcmp(name, r->name)) ||
		    (!name && r->shortopt && r->shortopt == opt)) {
			if (r->shortopt)
				fprintf(stderr, "netshim: option -%c/--%s: %s\n",
					r->shortopt, r->name, r->why);
			else
				fprintf(stderr, "netshim: option --%s: %s\n",
					r->name, r->why);
			return true;
		}
	}
	return false;
}

/**
 * conf_opt_path() - copy a path argument, refusing what does not fit
 * @val:	option value, for the message
 * @dst:	destination
 * @size:	size of @dst
 * @arg:	path
 *
 * Return: 0 on success, -1 on error (reported)
 */
static int conf_opt_path(int val, char *dst, size_t size, const char *arg)
{
	if (!*arg)
		return conf_bad(val, arg, "empty path");
	if (strlen(arg) >= size)
		return conf_bad(val, arg, "too long");
	strcpy(dst, arg);
	return 0;
}

/**
 * conf_opt_netns() - --netns: a path, a name under /run/netns, or a PID
 * @c:		configuration
 * @arg:	the argument: a name has no slash and is not a number
 *
 * Return: 0 on success, -1 on error (reported)
 */
static int conf_opt_netns(struct conf *c, const char *arg)
{
	if (!*arg || strchr(arg, '/') || conf_netns_is_pid(arg))
		return conf_opt_path(OPT_NETNS, c->netns, sizeof(c->netns),
				     arg);
	if (!strcmp(arg, ".") || !strcmp(arg, ".."))
		return conf_bad(OPT_NETNS, arg, "not a namespace name");
	if (snprintf(c->netns, sizeof(c->netns), "/run/netns/%s", arg) >=
	    (int)sizeof(c->netns))
		return conf_bad(OPT_NETNS, arg, "too long");
	return 0;
}

/**
 * conf_opt_mac() - -M: the guest's MAC address; --ns-mac-addr: the tap's,
 *		    which is the same address in namespace mode
 * @c:		configuration
 * @val:	the option, for messages
 * @arg:	xx:xx:xx:xx:xx:xx
 *
 * Return: 0 on success, -1 on error (reported)
 */
static int conf_opt_mac(struct conf *c, int val, const char *arg)
{
	const char *e = conf_mac_parse(arg, c->guest_mac);

	if (e)
		return conf_bad(val, arg, e);
	c->guest_mac_set = true;
	if (val == OPT_NS_MAC_ADDR)
		c->ns_mac_set = true;
	return 0;
}

/**
 * conf_opt_netmask() - -n: IPv4 netmask
 * @c:		configuration
 * @arg:	dotted netmask or prefix length
 *
 * Return: 0 on success, -1 on error (reported)
 */
static int conf_opt_netmask(struct conf *c, const char *arg)
{
	if (conf_netmask_parse(arg, &c->prefix4))
		return conf_bad('n', arg,
				"expected a contiguous dotted netmask or a prefix length 0-32");
	return 0;
}

/**
 * conf_word() - which of a few words an argument is
 * @arg:	the argument
 * @words:	the words, each at the index of the value it stands for
 * @n:		how many
 *
 * Return: the index of @arg in @words, -1 if it is none of them
 */
static int conf_word(const char *arg, const char *const *words, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(arg, words[i]))
			return i;
	return -1;
}

/**
 * conf_opt_bpf() - --bpf: whether to load the eBPF programs of bpf/
 * @c:		configuration
 * @arg:	auto, off or require
 *
 * Return: 0 on success, -1 on error (reported)
 */
static int conf_opt_bpf(struct conf *c, const char *arg)
{
	static const char *const words[] = {
		[CONF_BPF_AUTO] = "auto",
		[CONF_BPF_OFF] = "off",
		[CONF_BPF_REQUIRE] = "require",
	};
	int m = conf_word(arg, words, (int)(sizeof(words) / sizeof(words[0])));

	if (m < 0)
		return conf_bad(OPT_BPF, arg, "expected auto, off or require");
	c->bpf = (enum conf_bpf)m;
	return 0;
}

/**
 * conf_opt_virtio() - --virtio-features: what the vhost-user device offers
 * @c:		configuration
 * @arg:	passt or all
 *
 * Return: 0 on success, -1 on error (reported)
 */
static int conf_opt_virtio(struct conf *c, const char *arg)
{
	static const char *const words[] = {
		[CONF_VIRTIO_PASST] = "passt",
		[CONF_VIRTIO_ALL] = "all",
	};
	int m = conf_word(arg, words, (int)(sizeof(words) / sizeof(words[0])));

	if (m < 0)
		return conf_bad(OPT_VIRTIO_FEATURES, arg,
				"expected passt or all");
	c->virtio_features = (enum conf_virtio)m;
	return 0;
}

/**
 * conf_opt_migrate_format() - --migrate-format: the device state a
 *			       migration's source writes
 * @c:		configuration
 * @arg:	passt or netshim
 *
 * Return: 0 on success, -1 on error (reported)
 */
static int conf_opt_migrate_format(struct conf *c, const char *arg)
{
	static const char *const words[] = {
		[CONF_MIGRATE_PASST] = "passt",
		[CONF_MIGRATE_NETSHIM] = "netshim",
	};
	int m = conf_word(arg, words, (int)(sizeof(words) / sizeof(words[0])));

	if (m < 0)
		return conf_bad(OPT_MIGRATE_FORMAT, arg,
				"expected passt or netshim");
	c->migrate_format = (enum conf_migrate_format)m;
	return 0;
}

/**
 * conf_opt_io_uring() - --io-uring: whether the loop uses io_uring
 * @c:		configuration
 * @arg:	auto, off or require
 *
 * Return: 0 on success, -1 on error (reported)
 */
static int conf_opt_io_uring(struct conf *c, const char *arg)
{
	static const char *const words[] = {
		[CONF_IO_URING_OFF] = "off",
		[CONF_IO_URING_AUTO] = "auto",
		[CONF_IO_URING_REQUIRE] = "require",
	};
	int m = conf_word(arg, words, (int)(sizeof(words) / sizeof(words[0])));

	if (m < 0)
		return conf_bad(OPT_IO_URING, arg,
				"expected auto, off or require");
	c->io_uring = (enum conf_io_uring)m;
	return 0;
}

/**
 * conf_set() - an option that sets or clears a flag
 * @flag:	the flag
 * @value:	what it becomes
 *
 * Return: 0
 */
static int conf_set(bool *flag, bool value)
{
	*flag = value;
	return 0;
}

/**
 * conf_hand() - --dhcp-dns, --no-dhcp-dns and the same for the search list
 * @what:	what the command line said
 * @yes:	handed, or not
 *
 * Return: 0
 */
static int conf_hand(enum conf_hand *what, bool yes)
{
	*what = yes ? CONF_HAND_YES : CONF_HAND_NO;
	return 0;
}

/**
 * conf_opt_connect_timeout() - --connect-timeout: how long to wait for a VMM
 *				to listen
 * @c:		configuration
 * @arg:	seconds, 0 for no limit
 *
 * Return: 0 on success, -1 on a bad value (reported)
 */
static int conf_opt_connect_timeout(struct conf *c, const char *arg)
{
	c->connect_timeout_set = true;
	return conf_uint_opt(OPT_CONNECT_TIMEOUT, arg, 0, 86400,
			     &c->connect_timeout);
}

/**
 * conf_opt_trace() - --trace: every frame logged, and debug messages too
 * @c:		configuration
 *
 * Return: 0
 */
static int conf_opt_trace(struct conf *c)
{
	c->trace = c->debug = true;
	return 0;
}

/**
 * conf_print_usage() - -h: print the help and exit
 *
 * Return: never
 */
static int conf_print_usage(void)
{
	conf_usage(stdout);
	exit(EXIT_SUCCESS);
}

/**
 * conf_print_version() - --version: print the version and exit
 *
 * Return: never
 */
static int conf_print_version(void)
{
	printf("netshim " NETSHIM_VERSION "\n");
	exit(EXIT_SUCCESS);
}

/**
 * conf_print_caps() - --print-capabilities: what a launcher asks of a
 *		       vhost-user back-end before it uses it, then exit
 *
 * docs/interop/vhost-user.rst, "Backend program conventions".
 *
 * Return: never
 */
static int conf_print_caps(void)
{
	printf("{\n  \"type\": \"net\"\n}\n");
	exit(EXIT_SUCCESS);
}

/**
 * conf_opt() - apply one option, through its handler in CONF_OPTIONS
 * @c:		configuration
 * @st:		command line state
 * @opt:	option value, as getopt_long() returned it
 * @arg:	its argument, NULL if it takes none
 *
 * Return: 0 on success, -1 on error (reported)
 */
static int conf_opt(struct conf *c, struct conf_state *st, int opt,
		    const char *arg)
{
	switch (opt) {
#define CONF_OPT_CASE(id, name, shortopt, has_arg, metavar, help, handler) \
	case CONF_OPT_VAL(id, shortopt):				\
		return handler;
	/* A short option's letter is its value: true, as it should be */
	/* cppcheck-suppress incorrectCharBooleanError */
	CONF_OPTIONS(CONF_OPT_CASE)
#undef CONF_OPT_CASE
	}
	return -1;
}

/**
 * conf_defaults() - start from an empty configuration with defaults
 * @c:		configuration
 *
 * Prefix lengths start negative: 0 is a valid value, so "unset" needs
 * its own.
 */
void conf_defaults(struct conf *c)
{
	memset(c, 0, sizeof(*c));
	c->prefix4 = c->prefix6 = -1;
	c->vmm_fd = -1;
	c->connect_timeout = 60;
	memcpy(c->our_mac, conf_default_mac, ETH_ALEN_);
	c->max_tcp = 65536;
	c->max_flows = 16384;
	c->udp_timeout = 180;
	c->ra_interval = 60;
}

/**
 * conf_long_takes_no_arg() - tell if @what is "--flag=..." for a flag
 * @what:	argument getopt_long() refused
 *
 * Return: true if @what gives a value to a long option without one
 */
static bool conf_long_takes_no_arg(const char *what)
{
	const struct option *o;
	size_t len;

	if (strncmp(what, "--", 2) || !strchr(what, '='))
		return false;
	what += 2;
	len = strcspn(what, "=");
	for (o = conf_long_opts; o->name; o++) {
		if (o->has_arg == no_argument && strlen(o->name) == len &&
		    !strncmp(o->name, what, len))
			return true;
	}
	return false;
}

/**
 * conf_bad_option() - report what getopt_long() refused
 * @ret:	'?' (unknown option) or ':' (missing argument)
 * @argv:	arguments
 */
static void conf_bad_option(int ret, char **argv)
{
	const char *what = argv[optind - 1];
	char shortopt[3] = { '-', (char)optopt, '\0' };

	/* For a short option in a group ("-qx"), name the option itself */
	if (optopt && optopt < 256 && strncmp(what, "--", 2))
		what = shortopt;
	if (ret == ':')
		fprintf(stderr, "netshim: option '%s' needs an argument\n",
			what);
	else if (conf_long_takes_no_arg(what))
		fprintf(stderr, "netshim: option '%.*s' takes no argument\n",
			(int)strcspn(what, "="), what);
	else
		fprintf(stderr, "netshim: unknown option '%s'\n", what);
	fputs("Try 'netshim --help'.\n", stderr);
}

/**
 * conf_fwd_given() - tell if a forwarding spec forwards anything
 * @spec:	-t or -u spec
 *
 * Return: true unless it is empty ("none", or never given)
 */
static bool conf_fwd_given(const struct fwd_spec *spec)
{
	return spec->all || spec->n;
}

/**
 * conf_check_connect() - refuse what --connect and --connect-timeout cannot
 *			  go with
 * @c:		configuration after the command line
 *
 * Return: 0 if they agree, -1 if not (reported)
 */
static int conf_check_connect(const struct conf *c)
{
	if (c->connect_timeout_set && !c->vmm_connect) {
		fprintf(stderr, "netshim: --connect-timeout is for --connect: without it, netshim listens\n");
		return -1;
	}
	if (!c->vmm_connect)
		return 0;
	if (conf_ns_mode(c)) {
		fprintf(stderr, "netshim: --connect is for a VMM, not namespace mode\n");
		return -1;
	}
	if (c->vmm_fd >= 0) {
		fprintf(stderr, "netshim: --connect and --fd exclude each other: with --fd the connection is made already\n");
		return -1;
	}
	if (!*c->sock_path) {
		fprintf(stderr, "netshim: --connect needs -s/--socket: the path where the VMM listens\n");
		return -1;
	}
	return 0;
}

/**
 * conf_check_combined() - refuse options that contradict each other
 * @c:		configuration after the command line
 *
 * Return: 0 if they agree, -1 if not (reported)
 */
static int conf_check_combined(struct conf *c)
{
	if (c->no_tcp && conf_fwd_given(&c->tcp_fwd)) {
		fprintf(stderr, "netshim: --tcp-ports: TCP is disabled by --no-tcp\n");
		return -1;
	}
	if (c->no_udp && conf_fwd_given(&c->udp_fwd)) {
		fprintf(stderr, "netshim: --udp-ports: UDP is disabled by --no-udp\n");
		return -1;
	}
	if (conf_check_connect(c))
		return -1;
	if (c->vmm_fd >= 0 && *c->sock_path) {
		fprintf(stderr, "netshim: --fd and --socket exclude each other: with --fd there is no socket to listen on\n");
		return -1;
	}
	/* As for passt: the VMM's end going away ends the back-end */
	if (c->vmm_fd >= 0)
		c->one_off = true;
	/* An outbound interface is the template unless -i names one */
	if (!*c->ifname && *c->out_if4)
		strcpy(c->ifname, c->out_if4);
	else if (!*c->ifname && *c->out_if6)
		strcpy(c->ifname, c->out_if6);
	return 0;
}

/**
 * conf_ns_cmd() - namespace mode: the command or PID after the options
 * @c:		configuration, c->ns_cmd set if there is a command
 * @st:		command line state: whether the options ended with "--"
 * @argc:	argument count
 * @argv:	arguments; getopt_long() stopped at optind
 *
 * Return: 0 on success, -1 on error (reported)
 */
static int conf_ns_cmd(struct conf *c, struct conf_state *st, int argc,
		       char **argv)
{
	bool dashes = optind > 0 && optind <= argc &&
		      !strcmp(argv[optind - 1], "--");

	st->dashes = dashes;

	if (dashes && optind == argc) {
		fprintf(stderr, "netshim: -- needs a command after it\n");
		return -1;
	}
	/* pasta's forms: "[OPTION]... PID" and "[OPTION]... COMMAND" */
	if (!dashes && optind == argc - 1 && conf_netns_is_pid(argv[optind])) {
		if (*c->netns) {
			fprintf(stderr, "netshim: --netns and a PID exclude each other\n");
			return -1;
		}
		if (conf_opt_netns(c, argv[optind]))
			return -1;
		optind = argc;
	} else if (optind < argc) {
		c->ns_cmd = &argv[optind];
		optind = argc;
	}
	return 0;
}

/**
 * conf_getopt() - apply the command line to @c
 * @c:		configuration, with defaults
 * @st:		command line state, output
 * @argc:	argument count
 * @argv:	arguments (getopt_long() may reorder them)
 *
 * Return: 0 on success, -1 on error (reported); exits for --help and
 *	   --version
 */
int conf_getopt(struct conf *c, struct conf_state *st, int argc,
		char **argv)
{
	char short_opts[2 * CONF_LONG_OPTS_N + 3];
	int opt, longindex = -1;

	conf_short_opts(short_opts);
	/* 0 rather than 1 also resets getopt's state between calls */
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, short_opts, conf_long_opts,
				  &longindex)) != -1) {
		if (opt == '?' || opt == ':') {
			conf_bad_option(opt, argv);
			return -1;
		}
		if (conf_refuse(opt, longindex))
			return -1;
		longindex = -1;
		if (conf_opt(c, st, opt, optarg))
			return -1;
	}
	if (conf_ns_cmd(c, st, argc, argv))	/* takes every other argument */
		return -1;
	if (st->v4_only && st->v6_only) {
		fprintf(stderr, "netshim: --ipv4-only and --ipv6-only exclude each other\n");
		return -1;
	}
	return conf_check_combined(c);
}

