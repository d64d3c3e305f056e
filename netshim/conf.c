// SPDX-License-Identifier: GPL-2.0-or-later
/* netshim - configuration: the command line, and the defaults it overrides
 *
 * Everything the guest is handed defaults to what the pod has: addresses,
 * gateways and MTU of the template interface (read in netlink.c), and the
 * resolvers of /etc/resolv.conf.  The command line overrides any of it.
 * When the command line gives every address, prefix and gateway needed
 * and names no interface, the template is not read at all, so tests and
 * unusual pods do not depend on the pod's routes.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "conf.h"
#include "addrparse.h"
#include "fwdspec.h"
#include "log.h"
#include "netlink.h"
#include "resolv.h"

#ifndef NETSHIM_VERSION
#define NETSHIM_VERSION "unknown"
#endif

#define MTU_MIN			68
#define MTU_MAX			65520
#define SOCK_INDEX_MAX		1024
#define RESOLV_CONF		"/etc/resolv.conf"

/* "\x02nshim": locally administered, unicast */
static const uint8_t conf_default_mac[ETH_ALEN_] = {
	0x02, 0x6e, 0x73, 0x68, 0x69, 0x6d
};

enum {
	OPT_RUNAS = 256,
	OPT_MAP_HOST_LO,
	OPT_NO_DHCP,
	OPT_NO_DHCPV6,
	OPT_NO_NDP,
	OPT_NO_RA,
	OPT_NO_PEEK_OFF,
	OPT_MAX_TCP,
	OPT_MAX_FLOWS,
	OPT_UDP_TIMEOUT,
	OPT_RA_INTERVAL,
	OPT_VERSION,
	OPT_TRACE,
	OPT_LOG_SIZE,
	OPT_FQDN,
	OPT_OUT_IF4,
	OPT_OUT_IF6,
	OPT_NO_TCP,
	OPT_NO_UDP,
	OPT_NO_ICMP,
	OPT_MAP_GW,
	OPT_NO_MAP_GW,
	OPT_NO_DHCP_DNS,
	OPT_DHCP_DNS,
	OPT_NO_DHCP_SEARCH,
	OPT_DHCP_SEARCH,
	OPT_FREEBIND,
	OPT_VHOST_USER,
	OPT_PRINT_CAPS,
	OPT_REFUSED,		/* a long option of conf_refused[] */
	OPT_NETNS,
	OPT_BPF,
};

#define NOT_YET_NS	"not supported yet in netshim's namespace mode"

/* passt's options netshim refuses: long name, argument, short option (0
 * for none), why.  doc/passt-options.md explains every one.  To support
 * one, move it out of this table and give it a case of its own.
 */
#define CONF_REFUSED(X)							\
	X("repair-path", required_argument, 0,				\
	  "not supported: no TCP migration through passt-repair")	\
	X("dns-forward", required_argument, 0,				\
	  "not supported: netshim does not redirect DNS; give the guest " \
	  "the pod's resolvers with -D")				\
	X("dns-host", required_argument, 0,				\
	  "not supported: netshim does not redirect DNS; give the guest " \
	  "the pod's resolvers with -D")				\
	X("map-guest-addr", required_argument, 0,			\
	  "not supported: guest traffic to the pod's own address is not " \
	  "translated")							\
	X("host-lo-to-ns-lo", no_argument, 0, NOT_YET_NS)		\
	X("userns", required_argument, 0, NOT_YET_NS)			\
	X("netns-only", no_argument, 0, NOT_YET_NS)			\
	X("no-netns-quit", no_argument, 0, NOT_YET_NS)			\
	X("config-net", no_argument, 0, NOT_YET_NS)			\
	X("no-copy-routes", no_argument, 0, NOT_YET_NS)			\
	X("no-copy-addrs", no_argument, 0, NOT_YET_NS)			\
	X("ns-mac-addr", required_argument, 0, NOT_YET_NS)		\
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

static const char conf_short_opts[] =
	":s:1P:fqdl:p:i:a:n:g:D:S:M:m:t:u:46hF:eo:H:I:T:U:";

static const struct option conf_long_opts[] = {
	{ "socket", required_argument, NULL, 's' },
	{ "socket-path", required_argument, NULL, 's' },
	{ "fd", required_argument, NULL, 'F' },
	{ "one-off", no_argument, NULL, '1' },
	{ "vhost-user", no_argument, NULL, OPT_VHOST_USER },
	{ "print-capabilities", no_argument, NULL, OPT_PRINT_CAPS },
	{ "pid", required_argument, NULL, 'P' },
	{ "foreground", no_argument, NULL, 'f' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "debug", no_argument, NULL, 'd' },
	{ "trace", no_argument, NULL, OPT_TRACE },
	{ "stderr", no_argument, NULL, 'e' },
	{ "log-file", required_argument, NULL, 'l' },
	{ "log-size", required_argument, NULL, OPT_LOG_SIZE },
	{ "pcap", required_argument, NULL, 'p' },
	{ "runas", required_argument, NULL, OPT_RUNAS },
	{ "interface", required_argument, NULL, 'i' },
	{ "address", required_argument, NULL, 'a' },
	{ "netmask", required_argument, NULL, 'n' },
	{ "gateway", required_argument, NULL, 'g' },
	{ "dns", required_argument, NULL, 'D' },
	{ "search", required_argument, NULL, 'S' },
	{ "no-dhcp-dns", no_argument, NULL, OPT_NO_DHCP_DNS },
	{ "dhcp-dns", no_argument, NULL, OPT_DHCP_DNS },
	{ "no-dhcp-search", no_argument, NULL, OPT_NO_DHCP_SEARCH },
	{ "dhcp-search", no_argument, NULL, OPT_DHCP_SEARCH },
	{ "hostname", required_argument, NULL, 'H' },
	{ "fqdn", required_argument, NULL, OPT_FQDN },
	{ "outbound", required_argument, NULL, 'o' },
	{ "outbound-if4", required_argument, NULL, OPT_OUT_IF4 },
	{ "outbound-if6", required_argument, NULL, OPT_OUT_IF6 },
	{ "mac-addr", required_argument, NULL, 'M' },
	{ "mtu", required_argument, NULL, 'm' },
	{ "tcp-ports", required_argument, NULL, 't' },
	{ "udp-ports", required_argument, NULL, 'u' },
	{ "freebind", no_argument, NULL, OPT_FREEBIND },
	{ "ipv4-only", no_argument, NULL, '4' },
	{ "ipv6-only", no_argument, NULL, '6' },
	{ "map-host-loopback", required_argument, NULL, OPT_MAP_HOST_LO },
	{ "map-gw", no_argument, NULL, OPT_MAP_GW },
	{ "no-map-gw", no_argument, NULL, OPT_NO_MAP_GW },
	{ "no-tcp", no_argument, NULL, OPT_NO_TCP },
	{ "no-udp", no_argument, NULL, OPT_NO_UDP },
	{ "no-icmp", no_argument, NULL, OPT_NO_ICMP },
	{ "no-dhcp", no_argument, NULL, OPT_NO_DHCP },
	{ "no-dhcpv6", no_argument, NULL, OPT_NO_DHCPV6 },
	{ "no-ndp", no_argument, NULL, OPT_NO_NDP },
	{ "no-ra", no_argument, NULL, OPT_NO_RA },
	{ "no-peek-offset", no_argument, NULL, OPT_NO_PEEK_OFF },
	{ "max-tcp", required_argument, NULL, OPT_MAX_TCP },
	{ "max-flows", required_argument, NULL, OPT_MAX_FLOWS },
	{ "udp-timeout", required_argument, NULL, OPT_UDP_TIMEOUT },
	{ "ra-interval", required_argument, NULL, OPT_RA_INTERVAL },
	{ "bpf", required_argument, NULL, OPT_BPF },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
#define CONF_REFUSED_OPT(name, arg, shortopt, why)			\
	{ name, arg, NULL, shortopt ? shortopt : OPT_REFUSED },
	CONF_REFUSED(CONF_REFUSED_OPT)
	{ "netns", required_argument, NULL, OPT_NETNS },
	{ "ns-ifname", required_argument, NULL, 'I' },
	{ "tcp-ns", required_argument, NULL, 'T' },
	{ "udp-ns", required_argument, NULL, 'U' },
	{ NULL, 0, NULL, 0 },
};

/**
 * struct conf_state - what the command line said, beyond struct conf
 * @v4_only:	-4 given
 * @v6_only:	-6 given
 * @dns:	-D given: resolv.conf nameservers are not used
 * @search:	-S given: resolv.conf search domains are not used
 * @map_gw:	--map-gw: the gateway stands for the pod's loopback
 * @no_dhcp_dns:	--no-dhcp-dns: no DNS servers handed to the guest
 * @no_dhcp_search:	--no-dhcp-search: no search list handed to the guest
 */
struct conf_state {
	bool v4_only, v6_only;
	bool dns, search;
	bool map_gw;
	bool no_dhcp_dns, no_dhcp_search;
};

/**
 * conf_usage() - print the command line summary to @f
 * @f:		stdout for --help
 */
static void conf_usage(FILE *f)
{
	fputs(
"Usage: netshim [OPTION]...\n"
"       netshim [OPTION]... --netns PATH|PID\n"
"       netshim [OPTION]... -- COMMAND [ARG]...\n"
"Userspace network backend for a virtual machine in a pod: connects to\n"
"the VMM over a UNIX socket (QEMU -netdev stream) and maps guest traffic\n"
"to sockets of the pod.  In namespace mode it serves a network namespace\n"
"through a tap device instead: one it joins, or a new one for COMMAND.\n"
"\n"
"  -s, --socket PATH         UNIX socket for the VMM (default:\n"
"                            $XDG_RUNTIME_DIR or /tmp/netshim-N.socket);\n"
"                            also --socket-path\n"
"  -F, --fd FD               serve the VMM connection already open as FD\n"
"                            (a connected stream socket); implies -1\n"
"  -1, --one-off             exit when the VMM disconnects\n"
"      --vhost-user          be a vhost-user back-end on the socket (QEMU\n"
"                            -netdev vhost-user, Cloud Hypervisor)\n"
"      --print-capabilities  print the vhost-user back-end's capabilities\n"
"                            as JSON and exit\n"
"  -P, --pid FILE            write the process ID to FILE\n"
"  -f, --foreground          do not daemonise; log to stderr\n"
"  -q, --quiet               log warnings and errors only\n"
"  -d, --debug               log debug messages too\n"
"      --trace               log every frame too (implies --debug)\n"
"  -e, --stderr              log to stderr, also once in the background\n"
"  -l, --log-file FILE       log to FILE instead of stderr or syslog\n"
"      --log-size BYTES      empty the log file when it reaches BYTES\n"
"  -p, --pcap FILE           capture guest frames to FILE (libpcap)\n"
"      --runas UID[:GID]     run as this user and group (numbers or names;\n"
"                            started as root, default: nobody)\n"
"  -i, --interface NAME      template interface (default: default route's)\n"
"  -a, --address ADDR[/LEN]  guest address, once per family\n"
"  -n, --netmask MASK        IPv4 netmask, dotted or prefix length\n"
"  -g, --gateway ADDR        gateway, once per family\n"
"  -D, --dns ADDR            DNS server, repeatable; \"none\": no DNS\n"
"  -S, --search LIST         search domains (spaces or commas); \"none\"\n"
"      --no-dhcp-dns         hand no DNS servers to the guest\n"
"      --dhcp-dns            hand them (the default)\n"
"      --no-dhcp-search      hand no search domains to the guest\n"
"      --dhcp-search         hand them (the default)\n"
"  -H, --hostname NAME       host name for the guest (DHCP option 12)\n"
"      --fqdn NAME           FQDN for the guest (DHCP option 81, DHCPv6\n"
"                            option 39)\n"
"  -o, --outbound ADDR       source address of outbound sockets, once per\n"
"                            family\n"
"      --outbound-if4 NAME   bind IPv4 outbound sockets to interface NAME\n"
"      --outbound-if6 NAME   bind IPv6 outbound sockets to interface NAME\n"
"  -M, --mac-addr MAC        the guest's MAC address\n"
"  -m, --mtu MTU             guest MTU, 68-65520 (default: template's)\n"
"  -t, --tcp-ports SPEC      forward inbound TCP ports to the guest\n"
"  -u, --udp-ports SPEC      forward inbound UDP ports to the guest\n"
"                            SPEC: none | all | list of PORT[-PORT][:PORT\n"
"                            [-PORT]], ~PORT[-PORT], [ADDR][%IF]/PORT...;\n"
"                            or auto: in namespace mode, the ports the\n"
"                            namespace listens on; for a VM (-t only,\n"
"                            with eBPF sk_lookup), every port no pod\n"
"                            process listens on\n"
"      --freebind            forwarded ports may bind addresses the pod\n"
"                            does not have (yet)\n"
"  -4, --ipv4-only           IPv4 only\n"
"  -6, --ipv6-only           IPv6 only\n"
"      --map-host-loopback ADDR\n"
"                            guest traffic to ADDR goes to the pod's\n"
"                            loopback (default: nothing mapped); \"none\"\n"
"      --map-gw              map the gateway so (IPv4, global IPv6)\n"
"      --no-map-gw           the gateway is a router (the default)\n"
"      --no-tcp              drop the guest's TCP, forward no TCP port\n"
"      --no-udp              drop the guest's UDP (not DHCP), forward no\n"
"                            UDP port\n"
"      --no-icmp             drop the guest's echo requests\n"
"      --no-dhcp             no DHCPv4 server\n"
"      --no-dhcpv6           no DHCPv6 server\n"
"      --no-ndp              no NDP (neighbour and router advertisements)\n"
"      --no-ra               no router advertisements\n"
"      --no-peek-offset      read TCP data as kernels before 6.9 need to\n"
"                            (slower; for testing that code path)\n"
"      --max-tcp N           TCP connections, 1-1048576 (default 65536)\n"
"      --max-flows N         UDP and ICMP flows, 1-1048576 (default 16384)\n"
"      --udp-timeout SECONDS idle UDP flow timeout, 1-86400 (default 180)\n"
"      --ra-interval SECONDS router advertisement interval, 4-1800\n"
"                            (default 60)\n"
"      --bpf MODE            eBPF programs: auto (load them where the\n"
"                            kernel and privileges allow, the default),\n"
"                            off, or require (exit if they cannot load)\n"
"      --netns PATH|PID      serve this network namespace (a process's,\n"
"                            or a file such as /run/netns/NAME)\n"
"      --ns-ifname NAME      tap device in the namespace (default: the\n"
"                            template interface's name)\n"
"  -T, --tcp-ns SPEC         forward TCP ports of the namespace's loopback\n"
"                            to the pod's loopback (a list of ports, as -t,\n"
"                            or auto: the ports the pod listens on)\n"
"  -U, --udp-ns SPEC         UDP likewise, datagrams relayed socket to\n"
"                            socket\n"
"  -h, --help                show this help and exit\n"
"      --version             show the version and exit\n"
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
	const struct passwd *pw = NULL;
	const struct group *gr;
	unsigned long v;

	if (!conf_uint(s, 0, UINT_MAX - 1, &v)) {
		*id = v;
		if (!group)
			pw = getpwuid(v);
	} else if (group) {
		gr = getgrnam(s);
		if (!gr)
			return -1;
		*id = gr->gr_gid;
	} else {
		pw = getpwnam(s);
		if (!pw)
			return -1;
		*id = pw->pw_uid;
	}
	if (pw)
		*pw_gid = pw->pw_gid;
	return 0;
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
		return conf_bad(OPT_RUNAS, arg, "unknown user");
	if (colon && (!*colon || conf_runas_id(colon, true, &gid, NULL)))
		return conf_bad(OPT_RUNAS, arg, "unknown group");

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
 * conf_opt_mac() - -M: the guest's MAC address
 * @c:		configuration
 * @arg:	xx:xx:xx:xx:xx:xx
 *
 * Return: 0 on success, -1 on error (reported)
 */
static int conf_opt_mac(struct conf *c, const char *arg)
{
	const char *e = conf_mac_parse(arg, c->guest_mac);

	if (e)
		return conf_bad('M', arg, e);
	c->guest_mac_set = true;
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
 * conf_opt_bpf() - --bpf: whether to load the eBPF programs of bpf/
 * @c:		configuration
 * @arg:	auto, off or require
 *
 * Return: 0 on success, -1 on error (reported)
 */
static int conf_opt_bpf(struct conf *c, const char *arg)
{
	if (!strcmp(arg, "auto"))
		c->bpf = CONF_BPF_AUTO;
	else if (!strcmp(arg, "off"))
		c->bpf = CONF_BPF_OFF;
	else if (!strcmp(arg, "require"))
		c->bpf = CONF_BPF_REQUIRE;
	else
		return conf_bad(OPT_BPF, arg, "expected auto, off or require");
	return 0;
}

/**
 * conf_opt_flag() - options without an argument
 * @c:		configuration
 * @st:		command line state
 * @opt:	option value
 *
 * Return: true if @opt was one of them
 */
static bool conf_opt_flag(struct conf *c, struct conf_state *st, int opt)
{
	switch (opt) {
	case '1':		c->one_off = true;	break;
	case OPT_VHOST_USER:	c->vhost_user = true;	break;
	case 'f':		c->foreground = true;	break;
	case 'q':		c->quiet = true;	break;
	case 'd':		c->debug = true;	break;
	case OPT_TRACE:		c->trace = c->debug = true;	break;
	case 'e':		c->log_stderr = true;	break;
	case OPT_NO_TCP:	c->no_tcp = true;	break;
	case OPT_NO_UDP:	c->no_udp = true;	break;
	case OPT_NO_ICMP:	c->no_icmp = true;	break;
	case OPT_FREEBIND:	c->freebind = true;	break;
	case OPT_MAP_GW:	st->map_gw = true;	break;
	case OPT_NO_MAP_GW:	st->map_gw = false;	break;
	case OPT_NO_DHCP_DNS:	st->no_dhcp_dns = true;	break;
	case OPT_DHCP_DNS:	st->no_dhcp_dns = false;	break;
	case OPT_NO_DHCP_SEARCH: st->no_dhcp_search = true;	break;
	case OPT_DHCP_SEARCH:	st->no_dhcp_search = false;	break;
	case '4':		st->v4_only = true;	break;
	case '6':		st->v6_only = true;	break;
	case OPT_NO_DHCP:	c->no_dhcp = true;	break;
	case OPT_NO_DHCPV6:	c->no_dhcpv6 = true;	break;
	case OPT_NO_NDP:	c->no_ndp = true;	break;
	case OPT_NO_RA:		c->no_ra = true;	break;
	case OPT_NO_PEEK_OFF:	c->no_peek_off = true;	break;
	default:		return false;
	}
	return true;
}

/**
 * conf_opt_number() - options taking a number
 * @c:		configuration
 * @opt:	option value
 * @arg:	its argument
 * @handled:	set to whether @opt was one of them
 *
 * Return: 0 on success or if not handled, -1 on error (reported)
 */
static int conf_opt_number(struct conf *c, int opt, const char *arg,
			   bool *handled)
{
	*handled = true;
	switch (opt) {
	case 'm':
		return conf_uint_opt(opt, arg, MTU_MIN, MTU_MAX, &c->mtu);
	case OPT_MAX_TCP:
		return conf_uint_opt(opt, arg, 1, 1048576, &c->max_tcp);
	case OPT_MAX_FLOWS:
		return conf_uint_opt(opt, arg, 1, 1048576, &c->max_flows);
	case OPT_UDP_TIMEOUT:
		return conf_uint_opt(opt, arg, 1, 86400, &c->udp_timeout);
	case OPT_RA_INTERVAL:
		/* MaxRtrAdvInterval bounds, RFC 4861 section 6.2.1 */
		return conf_uint_opt(opt, arg, 4, 1800, &c->ra_interval);
	case OPT_LOG_SIZE:
		/* Room for a few messages at least */
		return conf_uint_opt(opt, arg, 4096, UINT_MAX, &c->log_size);
	}
	*handled = false;
	return 0;
}

/**
 * conf_opt() - apply one option with an argument
 * @c:		configuration
 * @st:		command line state
 * @opt:	option value
 * @arg:	its argument
 *
 * Return: 0 on success, -1 on error (reported)
 */
static int conf_opt(struct conf *c, struct conf_state *st, int opt,
		    const char *arg)
{
	bool handled;
	int ret;

	ret = conf_opt_number(c, opt, arg, &handled);
	if (handled)
		return ret;

	switch (opt) {
	case 's':
		return conf_opt_path(opt, c->sock_path, sizeof(c->sock_path),
				     arg);
	case 'P':
		return conf_opt_path(opt, c->pid_file, sizeof(c->pid_file),
				     arg);
	case 'l':
		return conf_opt_path(opt, c->log_file, sizeof(c->log_file),
				     arg);
	case 'p':
		return conf_opt_path(opt, c->pcap_file, sizeof(c->pcap_file),
				     arg);
	case 'i':
		return conf_opt_path(opt, c->ifname, sizeof(c->ifname), arg);
	case OPT_RUNAS:
		return conf_opt_runas(c, arg);
	case 'a':
		return conf_opt_address(c, arg);
	case 'n':
		return conf_opt_netmask(c, arg);
	case 'g':
		return conf_opt_gateway(c, arg);
	case 'D':
		return conf_opt_dns(c, st, arg);
	case 'S':
		return conf_opt_search(c, st, arg);
	case 'M':
		return conf_opt_mac(c, arg);
	case 't':
		return fwdspec_parse(&c->tcp_fwd, arg);
	case 'u':
		return fwdspec_parse(&c->udp_fwd, arg);
	case OPT_BPF:
		return conf_opt_bpf(c, arg);
	case OPT_MAP_HOST_LO:
		return conf_opt_map_lo(c, arg);
	case 'F':
		return conf_opt_fd(c, arg);
	case 'H':
		return conf_opt_dnsname(c->hostname, opt, arg);
	case OPT_FQDN:
		return conf_opt_dnsname(c->fqdn, opt, arg);
	case 'o':
		return conf_opt_outbound(c, arg);
	case OPT_OUT_IF4:
		return conf_opt_ifname(opt, c->out_if4, arg);
	case OPT_OUT_IF6:
		return conf_opt_ifname(opt, c->out_if6, arg);
	case OPT_NETNS:
		return conf_opt_path(opt, c->netns, sizeof(c->netns), arg);
	case 'I':
		return conf_opt_path(opt, c->ns_ifname, sizeof(c->ns_ifname),
				     arg);
	case 'T':
		return fwdspec_parse(&c->tcp_ns_fwd, arg);
	case 'U':
		return fwdspec_parse(&c->udp_ns_fwd, arg);
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
static void conf_defaults(struct conf *c)
{
	memset(c, 0, sizeof(*c));
	c->prefix4 = c->prefix6 = -1;
	c->vmm_fd = -1;
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
 * conf_fwd_has_rule() - tell if a spec names at least one port to forward
 * @spec:	forwarding spec
 *
 * Return: true if one of its rules is not an exclusion
 */
static bool conf_fwd_has_rule(const struct fwd_spec *spec)
{
	int i;

	for (i = 0; i < spec->n; i++)
		if (!spec->rule[i].exclude)
			return true;
	return false;
}

/**
 * conf_ns_fwd_check() - what -T or -U may be given
 * @c:		configuration, the command after "--" known
 * @spec:	the -T or -U spec
 * @opt:	"-T" or "-U", for the message
 *
 * Return: 0 if the spec is served, -1 if not (reported)
 */
static int conf_ns_fwd_check(const struct conf *c, const struct fwd_spec *spec,
			     const char *opt)
{
	if (spec->all || (spec->n && !conf_fwd_has_rule(spec))) {
		fprintf(stderr, "netshim: %s takes a list of ports or auto: all and exclusions alone are not implemented yet\n",
			opt);
		return -1;
	}
	if ((spec->n || spec->follow) && !c->ns_cmd && !*c->netns) {
		fprintf(stderr, "netshim: %s needs --netns or a command after --\n",
			opt);
		return -1;
	}
	return 0;
}

/**
 * conf_ns_mode() - namespace mode: the command after "--", and what
 *		    makes no sense without a VMM
 * @c:		configuration, c->ns_cmd set if there is a command
 * @argc:	argument count
 * @argv:	arguments; getopt_long() stopped at optind
 *
 * Return: 0 on success, -1 on error (reported)
 */
static int conf_ns_mode(struct conf *c, int argc, char **argv)
{
	if (optind > 0 && optind <= argc && !strcmp(argv[optind - 1], "--")) {
		if (optind == argc) {
			fprintf(stderr, "netshim: -- needs a command after it\n");
			return -1;
		}
		c->ns_cmd = &argv[optind];
		optind = argc;
	}
	if (c->ns_cmd && *c->netns) {
		fprintf(stderr, "netshim: --netns and a command after -- exclude each other\n");
		return -1;
	}
	if (conf_ns_fwd_check(c, &c->tcp_ns_fwd, "-T") ||
	    conf_ns_fwd_check(c, &c->udp_ns_fwd, "-U"))
		return -1;
	if (!c->ns_cmd && !*c->netns) {
		/* -t auto for a VM is the sk_lookup program's (fwd.c) */
		if (*c->ns_ifname || c->udp_fwd.follow) {
			fprintf(stderr, "netshim: %s needs --netns or a command after --%s\n",
				*c->ns_ifname ? "--ns-ifname" : "-u auto",
				*c->ns_ifname ? "" :
				" (for a VM, only -t auto is implemented)");
			return -1;
		}
		return 0;
	}
	if (*c->sock_path || c->one_off || c->vhost_user || c->vmm_fd >= 0) {
		fprintf(stderr, "netshim: --%s is for a VMM, not namespace mode\n",
			*c->sock_path ? "socket" : c->vmm_fd >= 0 ? "fd" :
			c->one_off ? "one-off" : "vhost-user");
		return -1;
	}
	/* The command's exit status is ours: wait for it in the foreground */
	if (c->ns_cmd)
		c->foreground = true;
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
static int conf_getopt(struct conf *c, struct conf_state *st, int argc,
		       char **argv)
{
	int opt, longindex = -1;

	/* 0 rather than 1 also resets getopt's state between calls */
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, conf_short_opts,
				  conf_long_opts, &longindex)) != -1) {
		if (opt == '?' || opt == ':') {
			conf_bad_option(opt, argv);
			return -1;
		}
		if (conf_refuse(opt, longindex))
			return -1;
		longindex = -1;
		if (opt == 'h') {
			conf_usage(stdout);
			exit(EXIT_SUCCESS);
		}
		if (opt == OPT_VERSION) {
			printf("netshim " NETSHIM_VERSION "\n");
			exit(EXIT_SUCCESS);
		}
		if (opt == OPT_PRINT_CAPS) {
			/* docs/interop/vhost-user.rst, "Backend program
			 * conventions": what a launcher asks before use
			 */
			printf("{\n  \"type\": \"net\"\n}\n");
			exit(EXIT_SUCCESS);
		}
		if (!conf_opt_flag(c, st, opt) && conf_opt(c, st, opt, optarg))
			return -1;
	}
	if (conf_ns_mode(c, argc, argv))
		return -1;
	if (optind < argc) {
		fprintf(stderr, "netshim: unexpected argument '%s'\n",
			argv[optind]);
		return -1;
	}
	if (st->v4_only && st->v6_only) {
		fprintf(stderr, "netshim: --ipv4-only and --ipv6-only exclude each other\n");
		return -1;
	}
	return conf_check_combined(c);
}

/**
 * conf_need_template() - tell if the template interface must be read
 * @c:		configuration after the command line; c->v4 and c->v6 say
 *		which families are wanted
 *
 * Return: true if -i was given, or an address, prefix or gateway of a
 *	   wanted family is missing (an IPv6 prefix defaults to 64)
 */
static bool conf_need_template(const struct conf *c)
{
	if (*c->ifname)
		return true;
	if (c->v4 && (!c->addr4.s_addr || c->prefix4 < 0 || !c->gw4.s_addr))
		return true;
	return c->v6 && (IN6_IS_ADDR_UNSPECIFIED(&c->addr6) ||
			 IN6_IS_ADDR_UNSPECIFIED(&c->gw6));
}

/**
 * conf_ll6_from_mac() - EUI-64 link-local address of a MAC address
 * @mac:	MAC address
 * @ll:		fe80::/64 address, output (RFC 4291 appendix A)
 */
static void conf_ll6_from_mac(const uint8_t *mac, struct in6_addr *ll)
{
	memset(ll, 0, sizeof(*ll));
	ll->s6_addr[0] = 0xfe;
	ll->s6_addr[1] = 0x80;
	ll->s6_addr[8] = mac[0] ^ 0x02;
	ll->s6_addr[9] = mac[1];
	ll->s6_addr[10] = mac[2];
	ll->s6_addr[11] = 0xff;
	ll->s6_addr[12] = 0xfe;
	ll->s6_addr[13] = mac[3];
	ll->s6_addr[14] = mac[4];
	ll->s6_addr[15] = mac[5];
}

/**
 * conf_finish_v4() - check IPv4 settings once defaults are in
 * @c:		configuration, c->v4 set
 *
 * Return: 0 on success, -1 on error (reported)
 */
static int conf_finish_v4(struct conf *c)
{
	const char *ifname = *c->ifname ? c->ifname : "(no interface)";

	if (c->prefix4 < 0) {
		fprintf(stderr, "netshim: no IPv4 prefix length known for %s; give -n\n",
			ifname);
		return -1;
	}
	if (!c->gw4.s_addr) {
		fprintf(stderr, "netshim: no IPv4 default gateway on %s; give -g, or -6\n",
			ifname);
		return -1;
	}
	if (c->gw4.s_addr == c->addr4.s_addr) {
		fprintf(stderr, "netshim: IPv4 guest address and gateway are the same\n");
		return -1;
	}
	return 0;
}

/**
 * conf_finish_v6() - complete IPv6 settings once defaults are in
 * @c:		configuration, c->v6 set
 *
 * The guest's router is always netshim: without a known IPv6 gateway,
 * netshim's own link-local address serves as one.
 *
 * Return: 0 on success, -1 on error (reported)
 */
static int conf_finish_v6(struct conf *c)
{
	if (c->prefix6 < 0)
		c->prefix6 = 64;
	if (IN6_IS_ADDR_LINKLOCAL(&c->gw6))
		c->our_ll6 = c->gw6;
	else
		conf_ll6_from_mac(c->our_mac, &c->our_ll6);
	if (IN6_IS_ADDR_UNSPECIFIED(&c->gw6))
		c->gw6 = c->our_ll6;
	if (IN6_ARE_ADDR_EQUAL(&c->gw6, &c->addr6)) {
		fprintf(stderr, "netshim: IPv6 guest address and gateway are the same\n");
		return -1;
	}
	return 0;
}

/**
 * conf_addresses() - fill addresses from the template, pick families
 * @c:		configuration after the command line
 * @st:		command line state
 *
 * A family is enabled when it is wanted (no -4 or -6 against it) and an
 * address of it is known, given or found.
 *
 * Return: 0 on success, -1 on error (reported)
 */
static int conf_addresses(struct conf *c, const struct conf_state *st)
{
	bool addr4_given = c->addr4.s_addr;

	c->v4 = !st->v6_only;
	c->v6 = !st->v4_only;
	if (conf_need_template(c) && nl_template(c))
		return -1;

	/* An IPv6-only pod may still have IPv4 addresses: no use without
	 * a route, and no reason to fail either, unless -a asked for IPv4
	 */
	if (c->v4 && c->addr4.s_addr && !c->gw4.s_addr && !addr4_given &&
	    c->v6 && !IN6_IS_ADDR_UNSPECIFIED(&c->addr6)) {
		warn("no IPv4 default route on %s: IPv4 disabled", c->ifname);
		c->v4 = false;
	}
	c->v4 = c->v4 && c->addr4.s_addr;
	c->v6 = c->v6 && !IN6_IS_ADDR_UNSPECIFIED(&c->addr6);
	if (!c->v4 && !c->v6) {
		if (*c->ifname)
			fprintf(stderr, "netshim: no usable addresses on %s; give -a\n",
				c->ifname);
		else
			fprintf(stderr, "netshim: no default route found; give -i, or -a with -n and -g\n");
		return -1;
	}

	if (c->v4 && conf_finish_v4(c))
		return -1;
	if (c->v6 && conf_finish_v6(c))
		return -1;
	if (!c->v4) {
		memset(&c->addr4, 0, sizeof(c->addr4));
		memset(&c->gw4, 0, sizeof(c->gw4));
		c->prefix4 = 0;
	}
	if (!c->v6) {
		memset(&c->addr6, 0, sizeof(c->addr6));
		memset(&c->gw6, 0, sizeof(c->gw6));
		c->prefix6 = 0;
	}
	return 0;
}

/**
 * conf_mtu() - settle the MTU
 * @c:		configuration: c->mtu from -m or the template, or 0
 *
 * Without either, the largest MTU is the fastest: the pod's kernel
 * segments for the guest anyway.  A template MTU beyond what an
 * Ethernet frame to the VMM may carry (loopback has 65536) is clamped.
 */
static void conf_mtu(struct conf *c)
{
	if (!c->mtu || c->mtu > MTU_MAX)
		c->mtu = MTU_MAX;
	if (c->mtu < MTU_MIN)
		c->mtu = MTU_MIN;
	if (c->v6 && c->mtu < 1280)
		warn("MTU %u is below IPv6's minimum of 1280", c->mtu);
}

/**
 * conf_names() - DNS servers and search domains from resolv.conf for
 *		  what the command line did not give
 * @c:		configuration
 * @st:		command line state
 */
static void conf_names(struct conf *c, const struct conf_state *st)
{
	struct conf saved;

	if (st->dns && st->search)
		return;

	memcpy(saved.dns4, c->dns4, sizeof(c->dns4));
	memcpy(saved.dns6, c->dns6, sizeof(c->dns6));
	memcpy(saved.search, c->search, sizeof(c->search));
	saved.n_dns4 = c->n_dns4;
	saved.n_dns6 = c->n_dns6;
	saved.n_search = c->n_search;

	if (resolv_read(c, RESOLV_CONF))
		warn("cannot read %s: %s; no DNS from it", RESOLV_CONF,
		     strerror(errno));

	if (st->dns) {
		memcpy(c->dns4, saved.dns4, sizeof(c->dns4));
		memcpy(c->dns6, saved.dns6, sizeof(c->dns6));
		c->n_dns4 = saved.n_dns4;
		c->n_dns6 = saved.n_dns6;
	}
	if (st->search) {
		memcpy(c->search, saved.search, sizeof(c->search));
		c->n_search = saved.n_search;
	}
}

/**
 * conf_sock_path() - pick a free default socket path
 * @c:		configuration, c->sock_path set on success
 *
 * Return: 0 on success, -1 if none is free (reported)
 */
static int conf_sock_path(struct conf *c)
{
	const char *dir = getenv("XDG_RUNTIME_DIR");
	struct stat st;
	int i, n;

	if (!dir || !*dir || access(dir, W_OK))
		dir = "/tmp";

	for (i = 1; i <= SOCK_INDEX_MAX; i++) {
		n = snprintf(c->sock_path, sizeof(c->sock_path),
			     "%s/netshim-%d.socket", dir, i);
		if (n < 0 || n >= (int)sizeof(c->sock_path)) {
			dir = "/tmp";
			i = 0;
			continue;
		}
		if (lstat(c->sock_path, &st) && errno == ENOENT)
			return 0;
	}
	fprintf(stderr, "netshim: no free socket path in %s; give -s\n", dir);
	return -1;
}

/**
 * conf_map_gw() - --map-gw: the gateway stands for the pod's loopback
 * @c:		configuration, addresses complete
 *
 * passt's default: guest traffic to the gateway goes to the host.  The
 * same as --map-host-loopback with the gateway's address, for a family
 * that --map-host-loopback did not map already.  An IPv6 gateway that is
 * link-local stays a router: guest traffic to link-local addresses never
 * leaves netshim.
 */
static void conf_map_gw(struct conf *c)
{
	if (c->v4 && !c->map_host_lo4) {
		c->host_lo4 = c->gw4;
		c->map_host_lo4 = true;
	}
	if (c->v6 && !c->map_host_lo6 && !IN6_IS_ADDR_LINKLOCAL(&c->gw6)) {
		c->host_lo6 = c->gw6;
		c->map_host_lo6 = true;
	}
}

/**
 * conf_parse() - build the whole configuration
 * @c:		configuration, filled completely
 * @argc:	argument count
 * @argv:	arguments
 *
 * Command line first; then the template interface (netlink) for the
 * addresses, prefixes, gateways and MTU it did not give, resolv.conf for
 * DNS, and a free socket path.
 *
 * Return: 0 on success, -1 on error (reported on stderr); exits with 0
 *	   after --help or --version
 */
int conf_parse(struct conf *c, int argc, char **argv)
{
	struct conf_state st = { 0 };

	conf_defaults(c);
	if (conf_getopt(c, &st, argc, argv))
		return -1;
	if (conf_addresses(c, &st))
		return -1;
	if (st.map_gw)
		conf_map_gw(c);
	conf_mtu(c);
	conf_names(c, &st);
	if (st.no_dhcp_dns)
		c->n_dns4 = c->n_dns6 = 0;
	if (st.no_dhcp_search)
		c->n_search = 0;
	if (c->vmm_fd < 0 && !*c->sock_path && !c->ns_cmd && !*c->netns &&
	    conf_sock_path(c))
		return -1;
	return 0;
}

/**
 * conf_log_names() - log DNS servers and search domains
 * @c:		configuration
 */
static void conf_log_names(const struct conf *c)
{
	char buf[1024], a[INET6_ADDRSTRLEN];
	size_t len = 0;
	int i;

	*buf = '\0';
	for (i = 0; i < c->n_dns4; i++)
		log_buf_add(buf, sizeof(buf), &len, " %s",
			inet_ntop(AF_INET, &c->dns4[i], a, sizeof(a)));
	for (i = 0; i < c->n_dns6; i++)
		log_buf_add(buf, sizeof(buf), &len, " %s",
			inet_ntop(AF_INET6, &c->dns6[i], a, sizeof(a)));
	info("DNS:%s", len ? buf : " none");

	len = 0;
	*buf = '\0';
	for (i = 0; i < c->n_search; i++)
		log_buf_add(buf, sizeof(buf), &len, " %s", c->search[i]);
	info("DNS search:%s", len ? buf : " none");
}

/**
 * conf_log_addresses() - log what the guest is given, per family
 * @c:		configuration
 */
static void conf_log_addresses(const struct conf *c)
{
	char a[INET6_ADDRSTRLEN], g[INET6_ADDRSTRLEN], l[INET6_ADDRSTRLEN];

	if (c->v4)
		info("IPv4: address %s/%d, gateway %s",
		     inet_ntop(AF_INET, &c->addr4, a, sizeof(a)), c->prefix4,
		     inet_ntop(AF_INET, &c->gw4, g, sizeof(g)));
	else
		info("IPv4: disabled");
	if (c->v6)
		info("IPv6: address %s/%d, gateway %s, our link-local %s",
		     inet_ntop(AF_INET6, &c->addr6, a, sizeof(a)), c->prefix6,
		     inet_ntop(AF_INET6, &c->gw6, g, sizeof(g)),
		     inet_ntop(AF_INET6, &c->our_ll6, l, sizeof(l)));
	else
		info("IPv6: disabled");
	if (c->map_host_lo4)
		info("guest traffic to %s goes to the pod's 127.0.0.1",
		     inet_ntop(AF_INET, &c->host_lo4, a, sizeof(a)));
	if (c->map_host_lo6)
		info("guest traffic to %s goes to the pod's ::1",
		     inet_ntop(AF_INET6, &c->host_lo6, a, sizeof(a)));
}

/**
 * conf_log_passt() - log what passt's options changed, when given
 * @c:		configuration
 */
static void conf_log_passt(const struct conf *c)
{
	char a[INET6_ADDRSTRLEN];

	if (*c->hostname || *c->fqdn)
		info("guest host name: %s, FQDN: %s",
		     *c->hostname ? c->hostname : "none",
		     *c->fqdn ? c->fqdn : "none");
	if (c->out4_set || *c->out_if4)
		info("IPv4 outbound sockets: from %s, interface %s",
		     c->out4_set ? inet_ntop(AF_INET, &c->out4, a, sizeof(a)) :
				   "any",
		     *c->out_if4 ? c->out_if4 : "any");
	if (c->out6_set || *c->out_if6)
		info("IPv6 outbound sockets: from %s, interface %s",
		     c->out6_set ? inet_ntop(AF_INET6, &c->out6, a, sizeof(a)) :
				   "any",
		     *c->out_if6 ? c->out_if6 : "any");
	if (c->no_tcp || c->no_udp || c->no_icmp)
		info("guest traffic dropped:%s%s%s", c->no_tcp ? " TCP" : "",
		     c->no_udp ? " UDP (but DHCP)" : "",
		     c->no_icmp ? " ICMP echo" : "");
}

/**
 * conf_log_summary() - log the configuration an operator needs to see
 * @c:		configuration
 */
void conf_log_summary(const struct conf *c)
{
	const uint8_t *m = c->guest_mac;
	char buf[1024];

	if (*c->ifname)
		info("template interface: %s (index %u)", c->ifname,
		     c->ifindex);
	else
		info("template interface: none, all given on the command line");
	info("MTU: %u", c->mtu);
	if (c->guest_mac_set)
		info("guest MAC: %02x:%02x:%02x:%02x:%02x:%02x",
		     m[0], m[1], m[2], m[3], m[4], m[5]);
	conf_log_addresses(c);
	conf_log_names(c);
	conf_log_passt(c);
	fwdspec_format(&c->tcp_fwd, buf, sizeof(buf));
	info("TCP ports forwarded: %s", buf);
	fwdspec_format(&c->udp_fwd, buf, sizeof(buf));
	info("UDP ports forwarded: %s", buf);
}
