#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""qmp.py - run QMP commands on a QEMU monitor socket, in order.

    qmp.py SOCKET 'COMMAND [JSON-ARGUMENTS]' ... [--event=NAME[:SECONDS]]

Each command's answer is printed as a line of JSON; the first error ends
the run with status 1.  --event=NAME waits (up to SECONDS, default 30) for
an asynchronous event of that name after the commands before it, and
prints it: device_del, say, only asks the guest, and QEMU tells with
DEVICE_DELETED when the guest let go of the device.
"""
import json
import socket
import sys
import time


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(30)
    s.connect(sys.argv[1])
    f = s.makefile("rw")
    events = []

    def reply():
        while True:
            line = f.readline()
            if not line:
                raise ConnectionError("QEMU closed the monitor")
            msg = json.loads(line)
            if "event" in msg:
                events.append(msg)
                continue
            return msg

    def call(cmd, args=None):
        req = {"execute": cmd}
        if args:
            req["arguments"] = args
        f.write(json.dumps(req) + "\n")
        f.flush()
        return reply()

    json.loads(f.readline())  # greeting
    call("qmp_capabilities")
    for arg in sys.argv[2:]:
        if arg.startswith("--event="):
            name, _, secs = arg[len("--event="):].partition(":")
            deadline = time.monotonic() + float(secs or 30)
            while not any(e["event"] == name for e in events):
                left = deadline - time.monotonic()
                if left <= 0:
                    print("qmp: no %s event" % name, file=sys.stderr)
                    return 1
                s.settimeout(left)
                try:
                    line = f.readline()
                except socket.timeout:
                    print("qmp: no %s event" % name, file=sys.stderr)
                    return 1
                if not line:
                    print("qmp: QEMU closed the monitor", file=sys.stderr)
                    return 1
                msg = json.loads(line)
                if "event" in msg:
                    events.append(msg)
            print(json.dumps([e for e in events if e["event"] == name][0]))
            continue
        cmd, _, rest = arg.partition(" ")
        r = call(cmd, json.loads(rest) if rest.strip() else None)
        print(json.dumps(r))
        if "error" in r:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
