# bench_results.py: the RESULT lines every benchmark prints,
#   RESULT NAME key=value key=value ...
# read by scripts/bench-table and scripts/compare_report.py.

import re

RESULT_RE = re.compile(r'^\s*RESULT\s+(\S+)\s*(.*)$')


def parse_result(line):
	"""A RESULT line as (name, {field: value}) in the order of the line,
	or None for any other line (a carriage return or newline is ignored)."""
	m = RESULT_RE.match(line.replace('\r', '').rstrip('\n'))
	if not m:
		return None
	fields = {}
	for word in m.group(2).split():
		key, sep, value = word.partition('=')
		if sep:
			fields[key] = value
	return m.group(1), fields
