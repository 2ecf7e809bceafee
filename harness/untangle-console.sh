#!/bin/sh
# untangle-console.sh LOG: make LOG, a QEMU console, one line a line,
# in place. The kernel's console and the programs share the one UART:
# the kernel writes each of its records, "[ seconds] text\n", whole, but
# at any point of a program's line, which then goes on after it. Each
# such record becomes a line of its own, and the program's line is
# joined again, so that the harness reads the program's lines as they
# were written. The carriage returns of the tty go too.
# "guest: [ seconds] " at the start of a line is the nested guest's
# kernel, relayed whole by the host's init: it stays. A record that
# lands just after a relayed line's "guest: " cannot be told from that,
# and is left so.
set -eu
tr -d '\r' <"$1" | awk '
	function stamp(s) { return match(s, /\[ *[0-9]+\.[0-9]+\] /) }
	# More records before the held line goes on.
	held != "" && stamp($0) && RSTART == 1 { print; next }
	{
		# "guest: " and "mem-model-" start the harness lines only:
		# before them, a held text was a line that never ended. But a
		# relayed line may have been cut just after its "guest: ".
		if (held != "" && ($0 ~ /^guest: / ||
		    ($0 ~ /^mem-model-/ && held != "guest: "))) {
			print held
			held = ""
		}
		line = held $0
		# The first record that starts inside the line, after what
		# was held, if any.
		pos = 0
		off = length(held)
		held = ""
		while (stamp(substr(line, off + 1))) {
			p = off + RSTART
			if (p > 1 && !(p == 8 && substr(line, 1, 7) == "guest: ")) {
				pos = p
				break
			}
			off = p
		}
		if (pos) {
			held = substr(line, 1, pos - 1)
			print substr(line, pos)
		} else {
			print line
		}
	}
	END { if (held != "") print held }' >"$1.tmp"
mv "$1.tmp" "$1"
