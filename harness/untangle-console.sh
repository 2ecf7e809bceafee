#!/bin/sh
# untangle-console.sh LOG: make LOG, a QEMU console, one line a line,
# in place. The kernel's console and the programs share the one UART:
# the kernel writes each of its records, "[ seconds] text\n", whole, but
# at any point of a program's line, which then goes on after it. Each
# such record becomes a line of its own, and the program's line is
# joined again, so that the harness reads the program's lines as they
# were written. The carriage returns of the tty go too.
# "guest: [ seconds] " at the start of a line is the nested guest's
# kernel, relayed whole by the host's init: it stays.
set -eu
tr -d '\r' <"$1" | awk '
	function stamp(s) { return match(s, /\[ *[0-9]+\.[0-9]+\] /) }
	{
		line = $0
		# The first record that starts inside the line, if any.
		pos = 0
		off = 0
		while (stamp(substr(line, off + 1))) {
			p = off + RSTART
			if (p > 1 && !(p == 8 && substr(line, 1, 7) == "guest: ")) {
				pos = p
				break
			}
			off = p
		}
		if (pos) {
			held = held substr(line, 1, pos - 1)
			print substr(line, pos)
		} else if (held != "" && stamp(line) && RSTART == 1) {
			print line
		} else {
			print held line
			held = ""
		}
	}
	END { if (held != "") print held }' >"$1.tmp"
mv "$1.tmp" "$1"
