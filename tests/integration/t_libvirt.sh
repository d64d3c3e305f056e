#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh: long (a guest boots, or much to move): started among the first
#
# The guest booted by libvirt 11.3 with netshim as the passt it starts,
# over the stream socket: the scenario is tests/libvirt/t_libvirt.sh.
exec bash "$(dirname "$(readlink -f "$0")")/../libvirt/t_libvirt.sh"
