#!/usr/bin/env python3
# Host unit tests of scripts/compare_report.py (the parsing, statistics and
# report of ./switchyard compare), as KTAP.  Needs no QEMU; the plot case
# is skipped when gnuplot is not installed.

import csv
import importlib.util
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location('compare_report',
					      os.path.join(HERE, 'compare_report.py'))
cr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cr)

LINUX_LOG = """[    0.000000] Linux version 6.1.0
RESULT ctxsw kernel=linux policy=linux mech=pipe mode=thread cpus=0,0 vec=none once=0 switches_per_sec=84037 switches=168074 seconds=2.000\r
  cpu ctxsw
RESULT ctxsw kernel=linux policy=linux mech=pipe mode=thread cpus=0,1 vec=none once=0 switches_per_sec=16999 switches=34000 seconds=2.000
RESULT pipe kernel=linux policy=linux mode=thread cpus=0,0 loops=20000 usecs_per_op=33.658 ops_per_sec=29711
RESULT membarrier kernel=linux policy=linux cmd=PRIVATE_EXPEDITED load=siblings:1 calls=1000 usecs_per_call=40.000
RESULT wake kernel=linux policy=linux mode=busy_fifo cpus=0,1 unsupported=sched_setscheduler:EPERM
RESULT ctxsw kernel=linux policy=linux mech=pipe mode=thread cpus=0,0 vec=none once=0 switches_per_sec=garbage
not a RESULT line
"""


def sy_log(policy, scale):
	return ('RESULT ctxsw kernel=switchyard policy=%s mech=pipe mode=thread cpus=0,0 vec=none '
		'once=0 switches_per_sec=%d switches=1 seconds=2.000\n'
		'RESULT ctxsw kernel=switchyard policy=%s mech=pipe mode=thread cpus=0,1 vec=none '
		'once=0 switches_per_sec=%d switches=1 seconds=2.000\n'
		'RESULT pipe kernel=switchyard policy=%s mode=thread cpus=0,0 loops=1 '
		'usecs_per_op=%.3f ops_per_sec=1\n'
		'RESULT membarrier kernel=switchyard policy=%s cmd=PRIVATE_EXPEDITED '
		'load=siblings:1 calls=1000 usecs_per_call=%.3f\n' % (
			policy, 200000 * scale, policy, 20000 * scale, policy, 10.0 / scale, policy,
			20.0 / scale))


results = []


def case(name):
	def wrap(fn):
		results.append((name, fn))
		return fn
	return wrap


@case('parse_result_reads_fields_and_ignores_other_lines')
def _():
	name, f = cr.parse_result('RESULT ctxsw kernel=linux a=1 b=x=y\r\n')
	assert name == 'ctxsw' and f == {'kernel': 'linux', 'a': '1', 'b': 'x=y'}, f
	assert cr.parse_result('  cpu ctxsw') is None
	assert cr.parse_result('') is None


@case('run_label_names_the_run_not_the_measurement')
def _():
	_, f = cr.parse_result(LINUX_LOG.splitlines()[1])
	assert cr.run_label('ctxsw', f) == 'pipe thread 0,0 no vector', cr.run_label('ctxsw', f)
	_, f = cr.parse_result('RESULT ctxsw mech=futex mode=process cpus=0,1 vec=avx once=1 '
			       'switches_per_sec=1')
	assert cr.run_label('ctxsw', f) == 'futex process 0,1 avx once', cr.run_label('ctxsw', f)
	_, f = cr.parse_result('RESULT ctxsw mech=yield mode=thread cpus=0,0 vec=sse once=0 x=2')
	assert cr.run_label('ctxsw', f) == 'yield thread 0,0 sse every round x=2'
	_, f = cr.parse_result('RESULT membarrier kernel=linux policy=linux cmd=GLOBAL load=alone '
			       'calls=9 usecs_per_call=0.3 ipi_sent=- ipi_recv_siblings=- '
			       'ipi_recv_unrelated=- sync_core=-')
	assert cr.run_label('membarrier', f) == 'GLOBAL load=alone', cr.run_label('membarrier', f)


@case('rows_of_log_keeps_numeric_figures_only')
def _():
	rows = cr.rows_of_log(LINUX_LOG.splitlines(True), 'linux', 'linux', 1)
	assert [r['benchmark'] for r in rows] == ['ctxsw', 'ctxsw', 'pipe', 'membarrier'], rows
	assert rows[0]['value'] == '84037' and rows[0]['better'] == 'higher'
	assert rows[2]['unit'].startswith('µs') and rows[2]['better'] == 'lower'


@case('median_and_range')
def _():
	assert cr.median([3, 1, 2]) == 2
	assert cr.median([4, 1, 3, 2]) == 2.5
	assert cr.stats([5, 1, 9]) == (5, 1, 9)
	try:
		cr.median([])
	except ValueError:
		pass
	else:
		raise AssertionError('median of nothing must fail')


@case('advantage_is_above_one_when_switchyard_is_faster')
def _():
	assert cr.advantage(200, 100, 'higher') == 2
	assert cr.advantage(10, 40, 'lower') == 4
	assert cr.advantage(0, 40, 'lower') is None


@case('cross_cpu_runs_are_recognised')
def _():
	assert cr.is_cross_cpu('pipe thread 0,1 no vector')
	assert not cr.is_cross_cpu('pipe thread 0,0 sse once')
	assert cr.is_cross_cpu('cross 0,1') and not cr.is_cross_cpu('PRIVATE_EXPEDITED load=siblings:1')


def make_comparison(out, reps):
	os.makedirs(os.path.join(out, 'logs'))
	with open(os.path.join(out, 'boots.tsv'), 'w') as b:
		b.write('log\tkernel\tpolicy\trep\tstatus\n')
		for rep in range(1, reps + 1):
			for kernel, policy, text in (('linux', 'linux', LINUX_LOG),
						     ('switchyard', 'deferred:256', sy_log('deferred:256', rep)),
						     ('switchyard', 'eager', sy_log('eager', 1))):
				log = 'logs/%s-%s-%d.log' % (kernel, policy.replace(':', '-'), rep)
				with open(os.path.join(out, log), 'w') as f:
					f.write(text)
				b.write('%s\t%s\t%s\t%d\tok\n' % (log, kernel, policy, rep))
	with open(os.path.join(out, 'meta.txt'), 'w') as m:
		m.write('linux=test\nicount=1\nreps=%d\n' % reps)


@case('report_writes_csv_and_summary_with_ratios')
def _():
	out = tempfile.mkdtemp()
	try:
		make_comparison(out, 3)
		assert cr.main([out]) == 0
		with open(os.path.join(out, 'results.csv')) as f:
			rows = list(csv.DictReader(f))
		# 3 reps x (4 Linux + 4 + 4 Switchyard figures)
		assert len(rows) == 36, len(rows)
		assert {r['kernel'] for r in rows} == {'linux', 'switchyard'}
		text = open(os.path.join(out, 'summary.md')).read()
		# deferred:256 reps scale 1,2,3: median 400000 of 200000..600000;
		# Linux 84037: advantage 4.76.
		line = next(l for l in text.splitlines() if l.startswith('| ctxsw pipe thread 0,0 no vector |'))
		assert '400 000 (200 000–600 000)' in line and '| 4.76 |' in line, line
		assert 'Linux | Switchyard deferred:256 | × (deferred:256) | Switchyard eager' in text
		# icount: the cross-CPU row is marked.
		assert '| ctxsw pipe thread 0,1 no vector † |' in text, text
		# membarrier: Linux 40 µs over Switchyard's median 10 µs.
		line = next(l for l in text.splitlines() if l.startswith('| membarrier'))
		assert '| 4.00 |' in line, line
	finally:
		shutil.rmtree(out)


@case('report_draws_a_png')
def _():
	if not shutil.which('gnuplot'):
		return 'SKIP gnuplot is not installed'
	out = tempfile.mkdtemp()
	try:
		make_comparison(out, 2)
		assert cr.main([out]) == 0
		with open(os.path.join(out, 'compare.png'), 'rb') as f:
			assert f.read(8) == b'\x89PNG\r\n\x1a\n'
	finally:
		shutil.rmtree(out)


@case('report_of_no_results_fails')
def _():
	out = tempfile.mkdtemp()
	try:
		os.makedirs(os.path.join(out, 'logs'))
		with open(os.path.join(out, 'boots.tsv'), 'w') as b:
			b.write('log\tkernel\tpolicy\trep\tstatus\nlogs/missing.log\tlinux\tlinux\t1\tok\n')
		assert cr.main([out]) == 1
	finally:
		shutil.rmtree(out)


LINUX_NEW = """RESULT perf_pipe kernel=linux policy=linux mode=process loops=20000 usecs_per_op=13.133 ops_per_sec=76143
RESULT perf_messaging kernel=linux policy=linux ipc=pipe mode=process groups=2 loops=100 tasks=80 seconds=0.378
RESULT perf_pipe kernel=linux policy=linux mode=thread loops=20000 unsupported=exit:1
RESULT cswitch kernel=linux policy=linux test=pipe mode=thread cpus=0,0 touch=fp,altivec,vector switches_per_sec=40000 min=39000 max=41000 seconds=2
RESULT membarrier kernel=linux policy=linux cmd=GLOBAL_EXPEDITED load=siblings:1 calls=800 usecs_per_call=9.000 p10_us=1.400 median_us=1.500 p90_us=40.000 ipi_sent=- ipi_recv_siblings=- ipi_recv_unrelated=- sync_core=- busy=1 ipis_per_call=0.001 krt_us=- krt_max_us=- kipi_us=-
RESULT membarrier kernel=linux policy=linux cmd=PRIVATE_EXPEDITED load=siblings:1 calls=800 usecs_per_call=20.000 p10_us=12.000 median_us=15.000 p90_us=30.000 ipi_sent=- ipi_recv_siblings=- ipi_recv_unrelated=- sync_core=- busy=1 ipis_per_call=0.996 krt_us=- krt_max_us=- kipi_us=-
"""
SY_NEW = """RESULT perf_pipe kernel=switchyard policy=deferred:256 mode=process loops=20000 usecs_per_op=5.486 ops_per_sec=182282
RESULT perf_messaging kernel=switchyard policy=deferred:256 ipc=pipe mode=process groups=2 loops=100 tasks=80 seconds=0.308
RESULT cswitch kernel=switchyard policy=deferred:256 test=pipe mode=thread cpus=0,0 touch=fp,altivec,vector switches_per_sec=80000 min=79000 max=81000 seconds=2
RESULT membarrier kernel=switchyard policy=deferred:256 cmd=GLOBAL_EXPEDITED load=siblings:1 calls=800 usecs_per_call=14.000 p10_us=12.000 median_us=13.500 p90_us=16.000 ipi_sent=800 ipi_recv_siblings=800 ipi_recv_unrelated=0 sync_core=0 busy=1 ipis_per_call=1.000 krt_us=11.000 krt_max_us=90.000 kipi_us=5.000
RESULT membarrier kernel=switchyard policy=deferred:256 cmd=PRIVATE_EXPEDITED load=siblings:1 calls=800 usecs_per_call=14.000 p10_us=11.000 median_us=13.000 p90_us=15.000 ipi_sent=800 ipi_recv_siblings=800 ipi_recv_unrelated=0 sync_core=0 busy=1 ipis_per_call=1.000 krt_us=10.500 krt_max_us=- kipi_us=4.000
"""


@case('linux_benchmarks_perf_and_cswitch_are_tabled')
def _():
	rows = cr.rows_of_log(LINUX_NEW.splitlines(True), 'linux', 'linux', 1)
	got = {(r['benchmark'], r['run']): (r['value'], r['unit'], r['better']) for r in rows}
	assert got[('perf_pipe', 'process')] == ('13.133', 'µs/op', 'lower'), got
	assert got[('perf_messaging', 'pipe process groups=2')] == ('0.378', 's', 'lower'), got
	assert got[('cswitch', 'pipe thread 0,0 touch=fp,altivec,vector')] == (
		'40000', 'switches/s', 'higher'), got
	# A run perf could not make gives no row.
	assert ('perf_pipe', 'thread') not in got, got
	# membarrier is compared by its batches' median; older logs by the mean.
	assert got[('membarrier', 'GLOBAL_EXPEDITED load=siblings:1')][0] == '1.5', got
	old = cr.rows_of_log(LINUX_LOG.splitlines(True), 'linux', 'linux', 1)
	assert [r['value'] for r in old if r['benchmark'] == 'membarrier'] == ['40'], old
	assert cr.fmt(0.378) == '0.378' and cr.fmt(13.133) == '13.13'


@case('membarrier_rows_with_fewer_ipis_than_busy_siblings_are_marked')
def _():
	lin = cr.mb_rows_of_log(LINUX_NEW.splitlines(True), 'linux', 'linux', 1)
	sy = cr.mb_rows_of_log(SY_NEW.splitlines(True), 'switchyard', 'deferred:256', 1)
	assert [cr.undelivered(r) for r in lin] == [True, False], lin
	assert not any(cr.undelivered(r) for r in sy), sy
	assert lin[0]['p90_us'] == 40.0 and sy[0]['krt_us'] == 11.0 and lin[0]['krt_us'] is None
	# QUERY, GLOBAL and rows with no busy sibling are never marked.
	for line in ('cmd=QUERY load=siblings:1 busy=1 ipis_per_call=0.000 median_us=0.1',
		     'cmd=GLOBAL load=siblings:1 busy=1 ipis_per_call=0.000 median_us=9',
		     'cmd=PRIVATE_EXPEDITED load=alone busy=0 ipis_per_call=0.000 median_us=0.4'):
		r = cr.mb_rows_of_log(['RESULT membarrier kernel=linux ' + line], 'linux', 'linux', 1)
		assert r and not cr.undelivered(r[0]), line
	out = tempfile.mkdtemp()
	try:
		os.makedirs(os.path.join(out, 'logs'))
		with open(os.path.join(out, 'boots.tsv'), 'w') as b:
			b.write('log\tkernel\tpolicy\trep\tstatus\n')
			for rep in (1, 2):
				for kernel, policy, text in (('linux', 'linux', LINUX_NEW),
							     ('switchyard', 'deferred:256', SY_NEW)):
					log = 'logs/%s-%d.log' % (kernel, rep)
					with open(os.path.join(out, log), 'w') as f:
						f.write(text)
					b.write('%s\t%s\t%s\t%d\tok\n' % (log, kernel, policy, rep))
		assert cr.main([out]) == 0
		text = open(os.path.join(out, 'summary.md')).read()
		line = next(l for l in text.splitlines()
			    if l.startswith('| membarrier GLOBAL_EXPEDITED load=siblings:1 | µs/call'))
		# Linux's cell is marked, Switchyard's is not; 13.5 / 1.5 = 0.11.
		assert '1.50 (1.50–1.50) ⚑ | 13.50 (13.50–13.50) | 0.11 |' in line, line
		detail = [l for l in text.splitlines()
			  if l.startswith('| GLOBAL_EXPEDITED load=siblings:1 |')]
		assert detail == [
			'| GLOBAL_EXPEDITED load=siblings:1 | Linux | 1.40 | 1.50 | 40.00 | 1.50 / 1.50 | 1 | '
			'0.00 ⚑ | — | — |',
			'| GLOBAL_EXPEDITED load=siblings:1 | Switchyard deferred:256 | 12.00 | 13.50 | '
			'16.00 | 13.50 / 13.50 | 1 | 1.00 | 11.00 | 5.00 |'], detail
		with open(os.path.join(out, 'membarrier.csv')) as f:
			mb = list(csv.DictReader(f))
		assert len(mb) == 8 and sum(int(r['undelivered']) for r in mb) == 2, mb
		assert '| perf_pipe process | µs/op | 13.13 (13.13–13.13) | 5.49 (5.49–5.49) | 2.39 |' in text
	finally:
		shutil.rmtree(out)


def main():
	print('KTAP version 1')
	print('1..%d' % len(results))
	failed = 0
	devnull = open(os.devnull, 'w')
	for i, (name, fn) in enumerate(results, 1):
		saved = sys.stdout
		sys.stdout = devnull	# the report prints its table
		try:
			note = fn()
			sys.stdout = saved
			print('ok %d %s%s' % (i, name, ' # ' + note if note else ''))
		except Exception as e:	# an assertion or a crash: both fail
			sys.stdout = saved
			failed += 1
			print('not ok %d %s # %s: %s' % (i, name, type(e).__name__, e))
	return 1 if failed else 0


if __name__ == '__main__':
	sys.exit(main())
