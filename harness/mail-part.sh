#!/bin/sh
# mail-part.sh NAME TREE FROM TO [PREFIX]: write build/mail/NAME/, the posting of
# a series stacked on the first part of the series (the second part,
# patches/2-apple/, or the KVM series, kvm/): the commits FROM..TO of
# TREE as git format-patch mails with a cover letter (the description of
# the branch TO), To: the maintainers and reviewers and Cc: the lists
# that get_maintainer.pl names for them, and every earlier part's patches
# as prerequisite-patch-id lines (git format-patch --base), but no
# base-commit line: the base is a commit of this repository alone (lib.sh,
# drop_base_commit). It is posted after the parts before it, which it
# needs; nothing is sent.
# PREFIX is the subject prefix (default PATCH): make-mail.sh gives the
# first part's, with its revision and PREFIXES. The commits are mailed as
# they are: make-mail.sh gives those of build/mail-work, where it has
# stacked them, the sender's, on the posting of the parts before them.
# The cover letter is from git's user.name and user.email.
# shellcheck source=harness/lib.sh
. "$(dirname "$0")/lib.sh"

[ $# = 4 ] || [ $# = 5 ] || die "usage: $0 NAME TREE FROM TO [PREFIX]"
name=$1 tree=$2 from=$3 to=$4 prefix=${5:-PATCH}
git -C "$tree" rev-parse -q --verify "$to" >/dev/null 2>&1 ||
	die "no $to in ${tree#"$TOP"/}: run 'make tree' first"
n=$(git -C "$tree" rev-list --count "$from..$to")
[ "$n" -gt 0 ] || die "${tree#"$TOP"/}: $from..$to has no commit to mail"
out=$BUILD/mail/$name
rm -rf "$out"
mkdir -p "$out/in"
# get_maintainer.pl reads the patches and the MAINTAINERS of the tree's
# checkout; the mails get its answer. --no-tree: build/mail-work is a
# sparse checkout.
git -C "$tree" -c diff.renames=true format-patch -q --zero-commit \
	--no-signature --abbrev=9 -o "$out/in" "$from..$to"
gm="perl scripts/get_maintainer.pl --no-tree --nogit --nogit-fallback --nogit-chief-penguins --norolestats"
# One address a line, joined with ", "; reviewers, whom both lists name,
# go in To: only.
# shellcheck disable=SC2086
tos=$(cd "$tree" && $gm --nol "$out"/in/*.patch)
# shellcheck disable=SC2086
ccs=$(cd "$tree" && $gm --nom "$out"/in/*.patch | { grep -vxF "$tos" || true; })
rm -rf "$out/in"
to_hdr=$(echo "$tos" | paste -sd, - | sed 's/,/, /g')
cc_hdr=$(echo "$ccs" | paste -sd, - | sed 's/,/, /g')
[ -n "$to_hdr" ] || die "get_maintainer.pl named no maintainer for $name"
# shellcheck disable=SC2046 # one option or none
git -C "$tree" -c diff.renames=true format-patch -q --no-thread \
	--cover-letter --cover-from-description=subject --zero-commit \
	--no-signature --abbrev=9 $(format_patch_base "$tree" "$from..$to") \
	--subject-prefix="$prefix" --to="$to_hdr" --cc="$cc_hdr" -o "$out" "$from..$to"
drop_base_commit "$out/0000-cover-letter.patch"
msg "    $name: $((n + 1)) mails in build/mail/$name/ ($n patches and the cover letter)"
msg "    $(sed -n 's/^Subject: //p' "$out"/0000-cover-letter.patch)"
msg "    To: $to_hdr"
msg "    Cc: $cc_hdr"
