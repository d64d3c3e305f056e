/* SPDX-License-Identifier: GPL-2.0-or-later
 * netshim - configuration: what the guest is given, and how we run
 */
#ifndef NETSHIM_CONF_H
#define NETSHIM_CONF_H

#include <stdbool.h>
#include <stdint.h>
#include <limits.h>
#include <string.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/types.h>

#define CONF_MAX_DNS		4
#define CONF_MAX_SEARCH		6
#define CONF_SEARCH_LEN		254
#define CONF_MAX_FWD		256	/* a pesto table's 255 rules fit */
#define CONF_NAME_LEN		253	/* longest DNS name, dots included */
#define ETH_ALEN_		6

/**
 * struct fwd_rule - one port forwarding rule from a -t/-u spec
 * @first:	first pod port
 * @last:	last pod port (== @first for a single port)
 * @to:		guest port of @first (ports keep their offset in a range)
 * @exclude:	rule excludes @first..@last (~ form)
 * @bind:	bind address ("" for any)
 * @dev:	interface the listening socket is bound to ("" for any)
 * @to_addr:	guest address connections and datagrams go to (v4-mapped
 *		for IPv4), :: for the guest's own (PORT:ADDR/PORT)
 */
struct fwd_rule {
	uint16_t first, last, to;
	bool exclude;
	char bind[INET6_ADDRSTRLEN];
	char dev[IF_NAMESIZE];
	struct in6_addr to_addr;
};

/**
 * struct fwd_spec - forwarding of inbound connections or datagrams
 * @all:	forward every port not excluded (and not bound in the pod)
 * @follow:	"auto": forward the ports the namespace listens on
 * @n:		number of rules
 * @all_rule:	with @all: the bind address, interface and target address
 *		of the ports "all" forwards (first 1, last 65535, to 1)
 * @rule:	rules, in command line order
 * @eph_first:	first port of the pod's ephemeral range, which "all" leaves
 *		out (rules may still name its ports), 0 for none
 * @eph_last:	its last port
 */
struct fwd_spec {
	bool all;
	bool follow;
	int n;
	uint16_t eph_first, eph_last;
	struct fwd_rule all_rule;
	struct fwd_rule rule[CONF_MAX_FWD];
};

/* What --config-net copies from the template interface, as pasta does */
#define CONF_COPY_ADDRS		16
#define CONF_COPY_ROUTES	64

/**
 * struct conf_addr - an address of the template interface
 * @a:		the address, v4-mapped for IPv4
 * @prefix:	its prefix length
 */
struct conf_addr {
	struct in6_addr a;
	int prefix;
};

/**
 * struct conf_route - a route of the main table through the template
 * @dst:	destination, v4-mapped for IPv4 (::ffff:0.0.0.0, :: default)
 * @gw:		gateway of the same family, :: for a route on the link
 * @dst_len:	destination prefix length
 * @metric:	its priority, 0 for the kernel's default
 * @protocol:	who made it (RTPROT_*), kept as it was
 * @v6:		an IPv6 route
 */
struct conf_route {
	struct in6_addr dst, gw;
	uint8_t dst_len;
	uint32_t metric;
	uint8_t protocol;
	bool v6;
};

/**
 * struct conf_copy - the template's addresses and routes, for --config-net
 * @addrs4:	copy IPv4 addresses (no --no-copy-addrs nor IPv4 -a)
 * @addrs6:	copy IPv6 addresses (no --no-copy-addrs nor IPv6 -a)
 * @routes4:	copy IPv4 routes (no --no-copy-routes nor IPv4 -g)
 * @routes6:	copy IPv6 routes (no --no-copy-routes nor IPv6 -g)
 * @n_addr:	addresses read
 * @addr:	the addresses, in the template's order
 * @n_route:	routes read
 * @route:	the routes, in the template's order
 */
struct conf_copy {
	bool addrs4, addrs6, routes4, routes6;
	int n_addr;
	struct conf_addr addr[CONF_COPY_ADDRS];
	int n_route;
	struct conf_route route[CONF_COPY_ROUTES];
};

/**
 * struct conf - addresses handed to the guest and runtime options
 */
/**
 * enum conf_bpf - --bpf: whether the eBPF programs of bpf/ are loaded
 * @CONF_BPF_AUTO:	where the kernel and privileges allow (the default)
 * @CONF_BPF_OFF:	never
 * @CONF_BPF_REQUIRE:	always: exit if one cannot be loaded
 */
enum conf_bpf {
	CONF_BPF_AUTO = 0,
	CONF_BPF_OFF,
	CONF_BPF_REQUIRE,
};

/**
 * enum conf_migrate_format - --migrate-format: the device state a
 *			      migration's source writes
 * @CONF_MIGRATE_PASST:		passt's stream, version 2 (the default):
 *				passt and netshim destinations read it
 * @CONF_MIGRATE_NETSHIM:	netshim's own: UDP and ICMP echo flows go
 *				too, and only netshim reads it
 */
enum conf_migrate_format {
	CONF_MIGRATE_PASST = 0,
	CONF_MIGRATE_NETSHIM,
};

/**
 * enum conf_virtio - --virtio-features: what the vhost-user device offers
 * @CONF_VIRTIO_PASST:	what every passt with migration offers (the
 *			default): the guest can move to passt
 * @CONF_VIRTIO_ALL:	netshim's offloads, indirect descriptors, event
 *			index and announcement as well
 */
enum conf_virtio {
	CONF_VIRTIO_PASST = 0,
	CONF_VIRTIO_ALL,
};

/**
 * enum conf_io_uring - --io-uring: whether the loop uses io_uring
 * @CONF_IO_URING_OFF:		never: epoll alone (the default: io_uring
 *				measured no faster, tests/bench/README.md)
 * @CONF_IO_URING_AUTO:		where the kernel and seccomp allow
 * @CONF_IO_URING_REQUIRE:	always: exit if it cannot
 */
enum conf_io_uring {
	CONF_IO_URING_OFF = 0,
	CONF_IO_URING_AUTO,
	CONF_IO_URING_REQUIRE,
};

struct conf {
	/* link to the VMM */
	char sock_path[108];
	char repair_path[108];	/* --repair-path, or sock_path + ".repair" */
	bool migrate_no_linger;	/* close migrated sockets at once */
	bool one_off;
	int vmm_fd;			/* -F: connected socket, else -1 */
	bool vhost_user;	/* a vhost-user front-end, not -netdev stream */
	bool migrate_exit;	/* exit once our state reached a destination */
	enum conf_migrate_format migrate_format;	/* what a source writes */
	enum conf_virtio virtio_features;	/* what vhost-user offers */
	bool vmm_connect;	/* --connect: the VMM listens, we connect */
	unsigned int connect_timeout;	/* --connect-timeout, 0: forever */
	bool connect_timeout_set;
	/* upgrade in place (daemon/upgrade.c) */
	bool upgrade;			/* --upgrade: take over, not start */
	char upgrade_path[108];		/* where a successor takes over */

	/* process */
	bool foreground, quiet, debug, trace;
	bool log_stderr;		/* -e: log to stderr, also as a daemon */
	unsigned int log_size;		/* log file size limit, 0: 1 MiB */
	char pid_file[PATH_MAX];
	char log_file[PATH_MAX];
	char pcap_file[PATH_MAX];
	char ctl_path[108];		/* -c: the control socket, "" if none */
	char metrics_path[108];		/* --metrics: the counters' socket */
	bool runas_set;
	uid_t uid;
	gid_t gid;

	/* template interface */
	char ifname[IF_NAMESIZE];
	unsigned int ifindex;
	bool local_mode;		/* none: conf_local() */
	unsigned int mtu;
	unsigned int tmpl_mtu;		/* the template's, 0 if not read */
	struct in6_addr tmpl_ll6;	/* its link-local address, :: if
					 * not read */

	/* IPv4: guest address, prefix length, gateway */
	bool v4;
	struct in_addr addr4, gw4;
	int prefix4;

	/* IPv6: guest global address, prefix length, gateway (link-local) */
	bool v6;
	struct in6_addr addr6, gw6;
	int prefix6;

	/* names */
	int n_dns4, n_dns6;
	struct in_addr dns4[CONF_MAX_DNS];
	struct in6_addr dns6[CONF_MAX_DNS];
	int n_search;
	char search[CONF_MAX_SEARCH][CONF_SEARCH_LEN + 1];
	char hostname[CONF_NAME_LEN + 1];	/* DHCP option 12, or "" */
	char fqdn[CONF_NAME_LEN + 1];		/* Client FQDN options, or "" */

	/* link layer */
	uint8_t our_mac[ETH_ALEN_];	/* netshim's (the router's) MAC */
	uint8_t guest_mac[ETH_ALEN_];	/* guest's, if given with -M */
	bool guest_mac_set;
	struct in6_addr our_ll6;	/* our link-local: gw6 if link-local */

	/* guest traffic to this address goes to the pod's loopback */
	bool map_host_lo4, map_host_lo6;
	struct in_addr host_lo4;
	struct in6_addr host_lo6;

	/* inbound forwarding */
	struct fwd_spec tcp_fwd, udp_fwd;
	bool freebind;			/* forwarded ports: any bind address */
	bool chroot_fallback;		/* --chroot-fallback */

	/* outbound sockets: source address and interface, per family */
	bool out4_set, out6_set;
	struct in_addr out4;
	struct in6_addr out6;
	char out_if4[IF_NAMESIZE], out_if6[IF_NAMESIZE];

	/* sizes and timers */
	unsigned int max_tcp;		/* TCP connections */
	unsigned int max_flows;		/* UDP and ICMP flows */
	unsigned int udp_timeout;	/* seconds */
	unsigned int ra_interval;	/* seconds between unsolicited RAs */

	/* namespace mode (netns.c): serve a network namespace, not a VMM */
	char netns[PATH_MAX];		/* --netns: a path or a PID, "" if none */
	char **ns_cmd;			/* command after "--", NULL if none */
	char ns_ifname[IF_NAMESIZE];	/* tap name, "" for the template's */
	bool no_netns_quit;		/* --no-netns-quit */
	bool netns_only;		/* --netns-only */
	char userns[PATH_MAX];		/* --userns PATH, "" if none */
	bool config_net;		/* --config-net: we set the tap up */
	struct conf_copy ns_copy;	/* what --config-net copies */
	bool ns_shell;			/* ns_cmd is the user's shell: pasta
					 * without a command */
	char *shell_argv[2];		/* ns_cmd then: $SHELL or /bin/sh */
	bool host_lo_to_ns_lo;		/* --host-lo-to-ns-lo */
	bool ns_mac_set;		/* --ns-mac-addr (sets guest_mac) */
	struct fwd_spec tcp_ns_fwd;	/* -T: namespace loopback -> pod's */
	struct fwd_spec udp_ns_fwd;	/* -U: the same for UDP */

	/* features */
	bool no_dhcp, no_dhcpv6, no_ndp, no_ra;
	bool no_tcp, no_udp, no_icmp;	/* guest traffic of it dropped */
	bool no_peek_off;		/* TCP: as if without SO_PEEK_OFF */
	enum conf_bpf bpf;		/* --bpf: eBPF programs of bpf/ */
	enum conf_io_uring io_uring;	/* --io-uring: the loop's io_uring */
};

/**
 * conf_ns_mode() - tell if netshim serves a namespace rather than a VM
 * @c:		configuration
 *
 * Return: true in namespace mode (a command after "--", or --netns)
 */
static inline bool conf_ns_mode(const struct conf *c)
{
	return c->ns_cmd || *c->netns;
}

/**
 * conf_netns_is_pid() - tell if a --netns argument (or pasta's PID after
 *			 the options) names a process: a decimal number
 * @s:		the argument
 *
 * Return: true if @s is digits alone
 */
static inline bool conf_netns_is_pid(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

int conf_parse(struct conf *c, int argc, char **argv);
void conf_log_summary(const struct conf *c);
int conf_netmask_parse(const char *arg, int *prefix);

#endif /* NETSHIM_CONF_H */
