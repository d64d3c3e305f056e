#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t_ctl_metrics.sh through netshim's vhost-user back-end (tests/vu_relay,
# offloads on): counters, flows and captures as on the stream socket,
# though frames to the guest go straight into its buffers while no
# capture runs, and are queued while one does.

export CTL_NETDEV=vhost-user
exec bash "$(dirname "$(readlink -f "$0")")/t_ctl_metrics.sh"
