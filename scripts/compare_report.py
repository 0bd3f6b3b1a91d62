#!/usr/bin/env python3
# compare_report.py: the report of `./switchyard compare`.  Reads the
# boots a comparison made (OUT/boots.tsv: log, kernel, policy, rep,
# status; each log holds the RESULT lines init --bench printed), and
# writes
#   OUT/results.csv   one row per kernel x policy x benchmark x rep
#   OUT/summary.md    the table: per benchmark, Linux's median and range
#                     over the reps, Switchyard's per policy, and the ratio
#   OUT/compare.png   grouped bars (gnuplot), when gnuplot is there
# and prints the table.  With --progress it instead reads a console on
# stdin and prints one short line per RESULT (compare's live progress).
#
# usage: compare_report.py OUT_DIR | compare_report.py --progress PREFIX
#
# The ratio is Switchyard's advantage: a rate (switches/s) over Linux's,
# or Linux's time (µs per operation) over Switchyard's.  Above 1,
# Switchyard is faster.

import csv
import math
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_results import parse_result  # noqa: E402


# The figure each benchmark is compared by: (field, unit, better).
FIGURES = {
	'ctxsw': ('switches_per_sec', 'switches/s', 'higher'),
	'pipe': ('usecs_per_op', 'µs/round trip', 'lower'),
	# The median of mbbench's timed batches (older logs: the mean).
	'membarrier': ('median_us', 'µs/call', 'lower'),
	'mbpipe': ('usecs_per_rt', 'µs/round trip', 'lower'),
	'timer': ('median_us', 'µs', 'lower'),
	'wake': ('median_us', 'µs', 'lower'),
	'proc': ('ops_per_sec', 'ops/s', 'higher'),
	'fs': ('ops_per_sec', 'ops/s', 'higher'),
	# Linux's own benchmarks, unmodified (perfbench, cswitch).
	'perf_pipe': ('usecs_per_op', 'µs/op', 'lower'),
	'perf_messaging': ('seconds', 's', 'lower'),
	'cswitch': ('switches_per_sec', 'switches/s', 'higher'),
}
# Fields that are measurements or labels of the kernel, not of the run.
NOT_RUN = {'kernel', 'policy', 'switches_per_sec', 'switches', 'seconds', 'usecs_per_op',
	   'ops_per_sec', 'loops', 'samples', 'min_us', 'median_us', 'p90_us', 'max_us',
	   'ratio', 'expirations', 'mean_period_us', 'raced', 'calls', 'usecs_per_call',
	   'usecs_per_rt', 'ops', 'unsupported', 'registered_pct', 'unregistered_pct',
	   'min', 'max', 'ipi_sent', 'ipi_recv_siblings', 'ipi_recv_unrelated', 'sync_core',
	   'tasks', 'p10_us', 'busy', 'ipis_per_call', 'krt_us', 'krt_max_us', 'kipi_us'}
# A figure's stand-in in logs older than it.
FALLBACK = {'median_us': 'usecs_per_call'}
# The membarrier commands that must interrupt every CPU running a busy
# sibling (or see it pass a barrier another way): fewer IPIs per call
# than busy siblings is a barrier that was not delivered.
EXPEDITED = {'GLOBAL_EXPEDITED', 'PRIVATE_EXPEDITED', 'PRIVATE_EXPEDITED_SYNC_CORE',
	     'PRIVATE_EXPEDITED_RSEQ'}
CSV_FIELDS = ['kernel', 'policy', 'rep', 'benchmark', 'run', 'figure', 'unit', 'better', 'value']


def run_label(name, fields):
	"""What a result measured, in words: 'pipe thread 0,1 sse once'."""
	parts = []
	for key, value in fields.items():
		if key in NOT_RUN or key == 'once':
			continue
		if key == 'vec':
			# ctxsw's vector state: none, touched once, or every round.
			if value == 'none':
				parts.append('no vector')
			else:
				once = fields.get('once') == '1'
				parts.append('%s %s' % (value, 'once' if once else 'every round'))
		elif key in ('mech', 'mode', 'cpus', 'op', 'call', 'cmd', 'case', 'ipc', 'test'):
			parts.append(value)
		else:
			parts.append('%s=%s' % (key, value))
	return ' '.join(parts)


def is_cross_cpu(run):
	"""Whether a run's threads are on different CPUs (marked under icount)."""
	m = re.search(r'(?:^| )(\d+),(\d+)(?: |$)', run)
	return bool(m and m.group(1) != m.group(2)) or ' cross' in ' ' + run


def known_results(lines):
	"""(name, fields, figure, unit, better) of each RESULT line of a
	benchmark that has a figure to compare."""
	for line in lines:
		parsed = parse_result(line)
		if parsed and parsed[0] in FIGURES:
			yield parsed + FIGURES[parsed[0]]


def rows_of_log(lines, kernel, policy, rep):
	"""The CSV rows of one boot's console."""
	rows = []
	for name, fields, figure, unit, better in known_results(lines):
		if figure not in fields and FALLBACK.get(figure) in fields:
			figure = FALLBACK[figure]
		if figure not in fields:
			continue
		try:
			value = float(fields[figure])
		except ValueError:
			continue
		rows.append({'kernel': kernel, 'policy': policy, 'rep': str(rep), 'benchmark': name,
			     'run': run_label(name, fields), 'figure': figure, 'unit': unit,
			     'better': better, 'value': '%g' % value})
	return rows


def number(text):
	"""A field's value as a float, or None ('-', missing, garbage)."""
	try:
		return float(text)
	except (TypeError, ValueError):
		return None


def mb_rows_of_log(lines, kernel, policy, rep):
	"""mbbench's distribution, IPIs and kernel timing per membarrier row."""
	rows = []
	for name, fields in filter(None, map(parse_result, lines)):
		if name != 'membarrier' or number(fields.get('median_us')) is None:
			continue
		row = {'kernel': kernel, 'policy': policy, 'rep': str(rep),
		       'run': run_label(name, fields), 'cmd': fields.get('cmd', ''),
		       'busy': int(number(fields.get('busy')) or 0)}
		for key in ('p10_us', 'median_us', 'p90_us', 'ipis_per_call', 'krt_us', 'kipi_us'):
			row[key] = number(fields.get(key))
		rows.append(row)
	return rows


def undelivered(row):
	"""Whether a row's kernel interrupted fewer CPUs per call than ran busy
	siblings of an expedited command's caller."""
	ipc = row['ipis_per_call']
	return (row['cmd'] in EXPEDITED and row['busy'] > 0 and ipc is not None and
		ipc < 0.95 * row['busy'])


def median(values):
	v = sorted(values)
	n = len(v)
	if n == 0:
		raise ValueError('median of nothing')
	return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def stats(values):
	"""(median, min, max) of a list of numbers."""
	return median(values), min(values), max(values)


def column_of(row):
	"""The table column a row belongs to: 'linux', 'host', or the policy."""
	if row['kernel'] in ('linux', 'host'):
		return row['kernel']
	return row['policy']


def advantage(sy, linux, better):
	"""Switchyard's advantage over Linux: above 1, Switchyard is faster."""
	if sy <= 0 or linux <= 0:
		return None
	return sy / linux if better == 'higher' else linux / sy


def summarise(rows):
	"""Columns in order, and per (benchmark, run) the values per column."""
	columns, table = [], {}
	for row in rows:
		col = column_of(row)
		if col not in columns:
			columns.append(col)
		key = (row['benchmark'], row['run'])
		entry = table.setdefault(key, {'unit': row['unit'], 'better': row['better'],
					       'values': {}})
		entry['values'].setdefault(col, []).append(float(row['value']))
	# Linux first, then the policies, the host last.
	columns.sort(key=lambda c: (c != 'linux', c == 'host'))
	return columns, table


def fmt(x):
	if x >= 1000:
		return '{:,.0f}'.format(x).replace(',', ' ')
	if x >= 100:
		return '%.1f' % x
	if x >= 1:
		return '%.2f' % x
	return '%.3f' % x


def cell(values):
	med, lo, hi = stats(values)
	if len(values) == 1:
		return fmt(med)
	return '%s (%s–%s)' % (fmt(med), fmt(lo), fmt(hi))


def summary_table(columns, table, icount, flags=frozenset()):
	"""The markdown table, as a list of lines.  flags: (run, column) pairs
	whose cell is marked ⚑ (membarrier: fewer IPIs than busy siblings)."""
	policies = [c for c in columns if c not in ('linux', 'host')]
	head = ['benchmark', 'unit']
	for c in columns:
		if c == 'linux':
			head.append('Linux')
		elif c == 'host':
			head.append('host (native, not comparable)')
		else:
			head.append('Switchyard %s' % c)
			if 'linux' in columns:
				head.append('× (%s)' % c)
	lines = ['| ' + ' | '.join(head) + ' |',
		 '| ' + ' | '.join(['---', '---'] + ['---:'] * (len(head) - 2)) + ' |']
	for (bench, run), entry in table.items():
		label = '%s %s' % (bench, run)
		if icount and is_cross_cpu(run):
			label += ' †'
		cells = [label, entry['unit']]
		values = entry['values']
		for c in columns:
			mark = ' ⚑' if (bench, run, c) in flags else ''
			cells.append(cell(values[c]) + mark if c in values else '—')
			if c in policies and 'linux' in columns:
				ratio = None
				if c in values and 'linux' in values:
					ratio = advantage(median(values[c]), median(values['linux']),
							  entry['better'])
				cells.append('%.2f' % ratio if ratio else '—')
		lines.append('| ' + ' | '.join(cells) + ' |')
	return lines


def mb_flags(mb_rows):
	"""(benchmark, run, column) of the membarrier cells to mark ⚑."""
	return {('membarrier', r['run'], column_of(r)) for r in mb_rows if undelivered(r)}


def fmt_or_dash(values):
	values = [v for v in values if v is not None]
	return fmt(median(values)) if values else '—'


def range_or_dash(values):
	"""'0.99' or '0.00–1.00' over the reps."""
	values = [v for v in values if v is not None]
	if not values:
		return '—'
	lo, hi = min(values), max(values)
	return '%.2f' % lo if hi - lo < 0.005 else '%.2f–%.2f' % (lo, hi)


def membarrier_table(columns, mb_rows):
	"""Per membarrier row and column: the medians over the reps of the
	batches' p10, median and p90, the IPIs per call over the reps, and
	Switchyard's own timing of its IPIs."""
	names = {'linux': 'Linux', 'host': 'host'}
	lines = ['| membarrier run | kernel | p10 µs | median µs | p90 µs | medians by rep | busy | '
		 'IPIs/call (reps) | kernel round trip µs | send→handler µs |',
		 '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |']
	runs = []
	for r in mb_rows:
		if r['run'] not in runs:
			runs.append(r['run'])
	for run in runs:
		for c in columns:
			mine = [r for r in mb_rows if r['run'] == run and column_of(r) == c]
			if not mine:
				continue
			ipc = range_or_dash([r['ipis_per_call'] for r in mine])
			if any(undelivered(r) for r in mine):
				ipc += ' ⚑'
			by_rep = ' / '.join(fmt(r['median_us']) for r in mine)
			lines.append('| %s | %s | %s | %s | %s | %s | %d | %s | %s | %s |' % (
				run, names.get(c, 'Switchyard ' + c),
				fmt_or_dash([r['p10_us'] for r in mine]),
				fmt_or_dash([r['median_us'] for r in mine]),
				fmt_or_dash([r['p90_us'] for r in mine]), by_rep, mine[0]['busy'], ipc,
				fmt_or_dash([r['krt_us'] for r in mine]),
				fmt_or_dash([r['kipi_us'] for r in mine])))
	return lines


MB_CSV_FIELDS = ['kernel', 'policy', 'rep', 'run', 'cmd', 'busy', 'p10_us', 'median_us',
		 'p90_us', 'ipis_per_call', 'krt_us', 'kipi_us', 'undelivered']


def write_mb_csv(out, mb_rows):
	with open(os.path.join(out, 'membarrier.csv'), 'w', newline='', encoding='utf-8') as f:
		w = csv.DictWriter(f, fieldnames=MB_CSV_FIELDS)
		w.writeheader()
		for r in mb_rows:
			w.writerow(dict(r, undelivered=int(undelivered(r)),
					**{k: '' if r[k] is None else '%g' % r[k]
					   for k in ('p10_us', 'median_us', 'p90_us', 'ipis_per_call',
						     'krt_us', 'kipi_us')}))


def read_boots(out):
	path = os.path.join(out, 'boots.tsv')
	with open(path, encoding='utf-8') as f:
		return list(csv.DictReader(f, delimiter='\t'))


def collect(out, boots):
	"""The CSV rows of every boot, and the membarrier rows' details."""
	rows, mb_rows = [], []
	for boot in boots:
		path = os.path.join(out, boot['log'])
		try:
			with open(path, encoding='utf-8', errors='replace') as f:
				lines = f.readlines()
		except OSError:
			continue
		rows += rows_of_log(lines, boot['kernel'], boot['policy'], boot['rep'])
		mb_rows += mb_rows_of_log(lines, boot['kernel'], boot['policy'], boot['rep'])
	return rows, mb_rows


def write_csv(out, rows):
	with open(os.path.join(out, 'results.csv'), 'w', newline='', encoding='utf-8') as f:
		w = csv.DictWriter(f, fieldnames=CSV_FIELDS)
		w.writeheader()
		w.writerows(rows)


def read_meta(out):
	"""key=value lines compare wrote (kernels, QEMU line, mode)."""
	meta = {}
	try:
		with open(os.path.join(out, 'meta.txt'), encoding='utf-8') as f:
			for line in f:
				key, _, value = line.rstrip('\n').partition('=')
				meta[key] = value
	except OSError:
		pass
	return meta


def write_summary(out, columns, table, boots, meta, mb_rows=()):
	icount = meta.get('icount') == '1'
	lines = ['# Switchyard against Linux', '']
	for key, text in (('linux', 'Linux'), ('switchyard', 'Switchyard'), ('qemu', 'QEMU line'),
			  ('linux_cmdline', 'Linux kernel options'),
			  ('switchyard_cmdline', 'Switchyard kernel options'),
			  ('reps', 'reps'), ('seconds', 'seconds per ctxsw run')):
		if key in meta:
			lines.append('- %s: `%s`' % (text, meta[key]))
	failed = [b for b in boots if b.get('status') not in ('ok', None)]
	lines.append('- boots: %d, %d of them did not end cleanly%s' % (
		len(boots), len(failed),
		'' if not failed else ' (%s)' % ', '.join('%s: %s' % (b['log'], b['status'])
							  for b in failed)))
	if icount:
		lines.append('- **-icount shift=0**: guest time is the instruction count, so these '
			     'figures count instructions and do not depend on how loaded the host '
			     'is; quote these on a shared machine. † cross-CPU: under icount QEMU '
			     'runs the vCPUs round-robin, so these reflect its scheduling as much '
			     'as the kernel\'s.')
	else:
		lines.append('- wall clock under TCG: the figures move with the host\'s load; '
			     'compare the ranges before reading much into a ratio near 1 '
			     '(`--icount` gives repeatable ones).')
	lines.append('- cells: median (min–max) over the reps; × = Switchyard\'s advantage '
		     '(its rate over Linux\'s, or Linux\'s time over its): above 1, Switchyard '
		     'is faster.')
	if mb_rows:
		lines.append('- membarrier: the figure is the median of the timed batches of calls; '
			     '⚑ marks a kernel that took fewer IPIs per call than there were busy '
			     'siblings of an expedited command\'s caller (a barrier it did not '
			     'deliver by IPI); the table after the main one has the distribution, '
			     'the IPIs per call and Switchyard\'s own timing of its IPIs.')
	lines.append('')
	lines += summary_table(columns, table, icount, mb_flags(mb_rows))
	if mb_rows:
		lines += ['', '## membarrier: distribution, IPIs per call, the kernel\'s share', '',
			  'p10, median, p90: of the µs per call of the timed batches (medians over '
			  'the reps; each rep\'s median beside them). IPIs/call: IPIs the other CPUs took per call (Switchyard: its '
			  'membarrier IPIs; Linux: function-call interrupts, /proc/interrupts CAL), '
			  'over the reps. Kernel round trip and send→handler: Switchyard\'s own '
			  'timing of its IPIs (/proc/switchyard/mbstat), means.', '']
		lines += membarrier_table(columns, mb_rows)
	text = '\n'.join(lines) + '\n'
	with open(os.path.join(out, 'summary.md'), 'w', encoding='utf-8') as f:
		f.write(text)
	return text


# ---- the plot ----

def plot_rows(columns, table, benches):
	"""Rows for one panel: (label, [median per column], ratio of the first policy)."""
	policies = [c for c in columns if c not in ('linux', 'host')]
	rows = []
	for (bench, run), entry in table.items():
		if bench not in benches:
			continue
		values = entry['values']
		meds = [median(values[c]) if c in values else 0 for c in columns]
		ratio = None
		if policies and policies[0] in values and 'linux' in values:
			ratio = advantage(median(values[policies[0]]), median(values['linux']),
					  entry['better'])
		label = ('%s %s' % ('' if bench == 'ctxsw' else bench, run)).strip()
		rows.append((label, meds, ratio))
	return rows


def write_plot_data(path, columns, rows):
	with open(path, 'w', encoding='utf-8') as f:
		f.write('# label ' + ' '.join(columns) + ' ratio\n')
		for label, meds, ratio in rows:
			f.write('"%s" %s %s\n' % (label.replace('"', "'"),
						   ' '.join('%g' % m for m in meds),
						   '%.2f' % ratio if ratio else '-'))


def gnuplot_script(out, columns, panels):
	"""The gnuplot program for compare.png: one panel per
	(title, data file, y label, log scale, (smallest, largest value))."""
	names = {'linux': 'Linux', 'host': 'host (native)'}
	n = len(columns)
	height = 720 * len(panels) + 260
	lines = ['set terminal pngcairo size 1800,%d font "sans,10" noenhanced' % height,
		 'set output "%s"' % os.path.join(out, 'compare.png'),
		 'set multiplot layout %d,1' % len(panels),
		 'set style data histograms', 'set style histogram clustered gap 1',
		 'set style fill solid 0.85 border -1', 'set boxwidth 0.9',
		 'set key top right', 'set grid ytics', 'set xtics rotate by 90 right',
		 'set rmargin 10', 'set datafile missing "-"']
	for title, data, ylabel, logscale, top in panels:
		# Room below for the longest label, written upright.
		with open(data, encoding='utf-8') as f:
			longest = max([len(line.split('"')[1]) for line in f if line.startswith('"')] or [10])
		lines.append('set bmargin %d' % (longest * 0.42 + 2))
		lines.append('set title "%s"' % title)
		lines.append('set ylabel "%s"' % ylabel)
		lines.append('set logscale y' if logscale else 'unset logscale y')
		# Room above the tallest bar for its ratio label.
		lo, hi = top
		if logscale:
			lines.append('set yrange [%g:%g]' % (10 ** math.floor(math.log10(lo) - 0.5),
							    hi * 25))
		else:
			lines.append('set yrange [0:%g]' % (hi * 1.3))
		plots = []
		for i, c in enumerate(columns):
			title_c = names.get(c, 'Switchyard ' + c)
			plots.append('"%s" using %d:xtic(1) title "%s"' % (data, i + 2, title_c))
		# The first policy's ratio over its bar: the x of column k of
		# cluster j is j + (k - (n-1)/2) / (n + 1) in clustered histograms.
		if 'linux' in columns and n > 1:
			k = 1
			plots.append('"%s" using ($0 + %f):(column(%d) * %s):(stringcolumn(%d) eq "-" ? '
				     '"" : stringcolumn(%d)."×") with labels rotate by 90 left '
				     'font "sans,8" notitle' % (
					     data, (k - (n - 1) / 2) / (n + 1), k + 2,
					     '1.15' if logscale else '1.03', n + 2, n + 2))
		lines.append('plot ' + ', \\\n     '.join(plots))
	lines.append('unset multiplot')
	return '\n'.join(lines) + '\n'


def write_plot(out, columns, table):
	"""compare.png; returns a sentence saying what happened."""
	panels = []

	def top(rows):
		values = [m for _, meds, _ in rows for m in meds if m > 0] or [1]
		return min(values), max(values)
	switch_rows = plot_rows(columns, table, {'ctxsw', 'cswitch'})
	if switch_rows:
		path = os.path.join(out, 'plot-ctxsw.dat')
		write_plot_data(path, columns, switch_rows)
		panels.append(('Context switches per second (higher is better; label: Switchyard ' +
			       '%s over Linux)' % next((c for c in columns if c not in ('linux', 'host')), ''),
			       path, 'switches/s (log scale)', True, top(switch_rows)))
	lat_rows = plot_rows(columns, table, {'pipe', 'membarrier', 'mbpipe', 'wake', 'timer',
					      'perf_pipe'})
	if lat_rows:
		path = os.path.join(out, 'plot-latency.dat')
		write_plot_data(path, columns, lat_rows)
		panels.append(('Latency: pipe round trip, membarrier call, wake-up (lower is better; '
			       'label: Linux over Switchyard)', path, 'µs (log scale)', True,
			       top(lat_rows)))
	msg_rows = plot_rows(columns, table, {'perf_messaging'})
	if msg_rows:
		path = os.path.join(out, 'plot-messaging.dat')
		write_plot_data(path, columns, msg_rows)
		panels.append(('perf bench sched messaging: seconds for the whole run (lower is '
			       'better; label: Linux over Switchyard)', path, 's (log scale)', True,
			       top(msg_rows)))
	rate_rows = plot_rows(columns, table, {'proc', 'fs'})
	if rate_rows:
		path = os.path.join(out, 'plot-rates.dat')
		write_plot_data(path, columns, rate_rows)
		panels.append(('Operations per second (higher is better)', path,
			       'ops/s (log scale)', True, top(rate_rows)))
	if not panels:
		return 'no figures to plot'
	script = os.path.join(out, 'compare.gp')
	with open(script, 'w', encoding='utf-8') as f:
		f.write(gnuplot_script(out, columns, panels))
	if not shutil.which('gnuplot'):
		return 'gnuplot is not installed: %s holds the plot, compare.png was not drawn' % script
	r = subprocess.run(['gnuplot', script], capture_output=True, text=True)
	if r.returncode != 0:
		return 'gnuplot failed: %s' % r.stderr.strip().splitlines()[-1:]
	return 'plot: %s' % os.path.join(out, 'compare.png')


def progress(prefix, stream):
	"""compare's live progress: a short line per RESULT on the console."""
	for name, fields, figure, unit, _ in known_results(stream):
		value = fields.get(figure, fields.get('unsupported', '?'))
		print('%s %s %s: %s %s' % (prefix, name, run_label(name, fields), value,
					  unit if figure in fields else '(unsupported)'), flush=True)


def main(argv):
	if len(argv) == 2 and argv[0] == '--progress':
		progress(argv[1], sys.stdin)
		return 0
	if len(argv) != 1 or argv[0] in ('-h', '--help'):
		print('usage: compare_report.py OUT_DIR | compare_report.py --progress PREFIX',
		      file=sys.stderr)
		return 2
	out = argv[0]
	boots = read_boots(out)
	rows, mb_rows = collect(out, boots)
	write_csv(out, rows)
	if mb_rows:
		write_mb_csv(out, mb_rows)
	if not rows:
		print('compare: no results in %s' % out)
		return 1
	columns, table = summarise(rows)
	print(write_summary(out, columns, table, boots, read_meta(out), mb_rows))
	print(write_plot(out, columns, table))
	return 0


if __name__ == '__main__':
	sys.exit(main(sys.argv[1:]))
