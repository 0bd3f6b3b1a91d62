// signal_ids: which IDs the process-directed signal calls accept.  As on
// Linux, kill() and rt_sigqueueinfo() take the TID of any thread, not
// only the thread-group leader's, and signal that thread's whole process.
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testcase.h"

static atomic_int worker_tid;
static atomic_int got;

static void on_usr1(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (sig == SIGUSR2 && si->si_code == SI_QUEUE && si->si_value.sival_int == 42)
		atomic_fetch_add(&got, 100);
	else
		atomic_fetch_add(&got, 1);
}

static void *worker(void *arg)
{
	(void)arg;
	atomic_store(&worker_tid, (int)syscall(SYS_gettid));
	for (;;)
		pause();
	return NULL;
}

// A child process with a second thread; reports that thread's TID.
static int child(int report)
{
	struct sigaction sa;
	pthread_t t;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_usr1;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);	// two signals: a second SIGUSR1 could merge
	if (pthread_create(&t, NULL, worker, NULL))
		return 1;
	while (!atomic_load(&worker_tid))
		usleep(1000);
	int tid = atomic_load(&worker_tid);
	if (write(report, &tid, sizeof(tid)) != sizeof(tid))
		return 2;
	// kill(tid) once, then rt_sigqueueinfo(tid) once: 1 + 100.
	for (int i = 0; i < 2000 && atomic_load(&got) != 101; i++)
		usleep(5000);
	return atomic_load(&got) == 101 ? 0 : 3;
}

static void t_tid_of_non_leader(void)
{
	int p[2], tid = 0;

	if (!check_ok(pipe(p), "pipe"))
		return;
	pid_t pid = fork_child();
	if (pid == 0)
		_exit(child(p[1]));
	close(p[1]);
	if (!check(read(p[0], &tid, sizeof(tid)) == sizeof(tid) && tid != pid, "the thread's TID")) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return;
	}
	check_ok(kill(tid, SIGUSR1), "kill(TID of a non-leader thread)");
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	si.si_signo = SIGUSR2;
	si.si_code = SI_QUEUE;
	si.si_pid = getpid();
	si.si_uid = getuid();
	si.si_value.sival_int = 42;
	check_ok(syscall(SYS_rt_sigqueueinfo, tid, SIGUSR2, &si),
		 "rt_sigqueueinfo(TID of a non-leader thread)");
	check_child_ok(pid, "the process got both (1 thread, 2 report, 3 signals missing)");
	close(p[0]);
}

// An ID that names no thread at all is still ESRCH.
static void t_unknown_id(void)
{
	check_errno(kill(0x3ffffff0, 0), ESRCH, "kill of an unused ID");
}

static const struct test_case cases[] = {
	{ "kill_and_sigqueue_take_any_tid", t_tid_of_non_leader },
	{ "unknown_id_ESRCH", t_unknown_id },
};

int main(void)
{
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
