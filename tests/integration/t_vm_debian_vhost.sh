#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: long (a guest boots, or much to move): started among the first
#
# The Debian 12 guest of t_vm_debian.sh (systemd-networkd, DHCP=yes,
# SLAAC, systemd-resolved, curl both families, inbound -t 8080) with QEMU 10
# as the backend's vhost-user front-end, the device's offloads as QEMU
# offers them by default, guest memory a shared memfd.

export NETDEV=vhost-user
exec bash "$(dirname "$(readlink -f "$0")")/t_vm_debian.sh"
