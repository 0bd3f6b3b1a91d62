#!/bin/sh
# Emit an assembly file holding the kernel's function symbols sorted by
# address, for symbolized backtraces:  ksyms_addr[], ksyms_name_off[], ksyms_names.
set -e
${NM:-nm} -n "$1" | awk 'BEGIN { n = 0 }
	$2 ~ /^[tT]$/ && $3 !~ /^\./ { addr[n] = $1; name[n] = $3; n++ }
	END {
		print "\t.section .ksyms, \"a\""
		print "\t.balign 8"
		print "\t.globl ksyms_count\nksyms_count:\n\t.quad " n
		print "\t.globl ksyms_addr\nksyms_addr:"
		for (i = 0; i < n; i++) print "\t.quad 0x" addr[i]
		print "\t.globl ksyms_name_off\nksyms_name_off:"
		off = 0
		for (i = 0; i < n; i++) { print "\t.long " off; off += length(name[i]) + 1 }
		print "\t.globl ksyms_names\nksyms_names:"
		for (i = 0; i < n; i++) print "\t.asciz \"" name[i] "\""
	}'
