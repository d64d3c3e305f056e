// SPDX-License-Identifier: GPL-2.0-or-later
/* qstats - packets through each queue of a NIC, from its driver's ethtool
 * statistics (what "ethtool -S" shows; the guest has no ethtool)
 *
 *   qstats IFNAME
 *
 * Prints, on one line, the statistics named rx_queue_N_packets and
 * tx_queue_N_packets (virtio-net's per-queue counts) with their values:
 * "rx_queue_0_packets 12 tx_queue_0_packets 34 ...".  Exits 1 if the
 * driver gives none.
 *
 * Built static by mkinitramfs.sh for the guest, which has no compiler.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

/* ioctl_ethtool() - one SIOCETHTOOL request on IFNAME */
static int ioctl_ethtool(int s, const char *ifname, void *data)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = data;
	return ioctl(s, SIOCETHTOOL, &ifr);
}

int main(int argc, char **argv)
{
	struct ethtool_sset_info *info;
	struct ethtool_gstrings *names;
	struct ethtool_stats *stats;
	unsigned int n, i, shown = 0;
	int s;

	if (argc != 2) {
		fprintf(stderr, "usage: qstats IFNAME\n");
		return 2;
	}
	s = socket(AF_INET, SOCK_DGRAM, 0);
	info = calloc(1, sizeof(*info) + sizeof(__u32));
	if (s < 0 || !info)
		return 1;
	info->cmd = ETHTOOL_GSSET_INFO;
	info->sset_mask = 1ULL << ETH_SS_STATS;
	if (ioctl_ethtool(s, argv[1], info)) {
		perror("qstats: ETHTOOL_GSSET_INFO");
		return 1;
	}
	if (!info->sset_mask) {
		fprintf(stderr, "qstats: %s has no statistics\n", argv[1]);
		return 1;
	}
	n = info->data[0];
	names = calloc(1, sizeof(*names) + (size_t)n * ETH_GSTRING_LEN);
	stats = calloc(1, sizeof(*stats) + (size_t)n * sizeof(__u64));
	if (!names || !stats)
		return 1;
	names->cmd = ETHTOOL_GSTRINGS;
	names->string_set = ETH_SS_STATS;
	names->len = n;
	stats->cmd = ETHTOOL_GSTATS;
	stats->n_stats = n;
	if (ioctl_ethtool(s, argv[1], names) ||
	    ioctl_ethtool(s, argv[1], stats)) {
		perror("qstats: ETHTOOL_GSTRINGS/GSTATS");
		return 1;
	}
	for (i = 0; i < n; i++) {
		char name[ETH_GSTRING_LEN + 1];
		const char *p = name + 9;

		memcpy(name, names->data + i * ETH_GSTRING_LEN,
		       ETH_GSTRING_LEN);
		name[ETH_GSTRING_LEN] = '\0';
		if (strncmp(name, "rx_queue_", 9) &&
		    strncmp(name, "tx_queue_", 9))
			continue;
		while (*p >= '0' && *p <= '9')
			p++;
		if (p == name + 9 || strcmp(p, "_packets"))
			continue;	/* not [rt]x_queue_N_packets */
		printf("%s%s %llu", shown++ ? " " : "", name,
		       (unsigned long long)stats->data[i]);
	}
	printf("\n");
	close(s);
	return shown ? 0 : 1;
}
