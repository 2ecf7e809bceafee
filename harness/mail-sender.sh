#!/bin/sh
# mail-sender.sh: print whom the posting is from, 'Name <address>': git's
# user.name and user.email as this repository sees them, as b4 takes
# them. Refuses, saying what to set, when either is unset or the address
# is at a domain reserved for examples and tests (RFC 2606, RFC 6761).
# 'make mail' runs it first, before it makes the trees; make-mail.sh and
# the scripts it runs read the same (sender_identity in lib.sh).
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# = 0 ] || die "usage: $0"
sender_identity
msg "$SENDER_NAME <$SENDER_EMAIL>"
