#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: long (a guest boots, or much to move): started among the first
#
# A real Linux guest under QEMU on -netdev stream, configured by DHCPv4,
# SLAAC and DHCPv6: the scenario is tests/vm/t_vm.sh.
exec bash "$(dirname "$(readlink -f "$0")")/../vm/t_vm.sh"
