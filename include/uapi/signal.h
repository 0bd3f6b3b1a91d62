// Linux x86-64 signal ABI: numbers, flags, and the structures user space
// exchanges with the kernel.
#ifndef UAPI_SIGNAL_H
#define UAPI_SIGNAL_H

#include <stdbool.h>
#include <stdint.h>

#define NSIG		64

#define SIGHUP		1
#define SIGINT		2
#define SIGQUIT		3
#define SIGILL		4
#define SIGTRAP		5
#define SIGABRT		6
#define SIGBUS		7
#define SIGFPE		8
#define SIGKILL		9
#define SIGUSR1		10
#define SIGSEGV		11
#define SIGUSR2		12
#define SIGPIPE		13
#define SIGALRM		14
#define SIGTERM		15
#define SIGSTKFLT	16
#define SIGCHLD		17
#define SIGCONT		18
#define SIGSTOP		19
#define SIGTSTP		20
#define SIGTTIN		21
#define SIGTTOU		22
#define SIGURG		23
#define SIGXCPU		24
#define SIGXFSZ		25
#define SIGVTALRM	26
#define SIGPROF		27
#define SIGWINCH	28
#define SIGIO		29
#define SIGPWR		30
#define SIGSYS		31
#define SIGRTMIN	32

#define SIG_DFL		0UL
#define SIG_IGN		1UL

#define SA_NOCLDSTOP	0x00000001
#define SA_NOCLDWAIT	0x00000002
#define SA_SIGINFO	0x00000004
#define SA_EXPOSE_TAGBITS 0x00000800	// no tag bits on x86: kept, no effect
#define SA_RESTORER	0x04000000
#define SA_ONSTACK	0x08000000
#define SA_RESTART	0x10000000
#define SA_NODEFER	0x40000000
#define SA_RESETHAND	0x80000000

#define SIG_BLOCK	0
#define SIG_UNBLOCK	1
#define SIG_SETMASK	2

#define SS_ONSTACK	1
#define SS_DISABLE	2
#define MINSIGSTKSZ	2048

// si_code values.
#define SI_USER		0
#define SI_KERNEL	0x80
#define SI_TIMER	(-2)
#define SI_TKILL	(-6)
#define SEGV_MAPERR	1
#define SEGV_ACCERR	2
#define BUS_ADRALN	1
#define BUS_ADRERR	2
#define ILL_ILLOPC	1
#define ILL_ILLOPN	2
#define ILL_PRVOPC	5
#define FPE_INTDIV	1
#define FPE_FLTDIV	3
#define FPE_FLTOVF	4
#define FPE_FLTUND	5
#define FPE_FLTRES	6
#define FPE_FLTINV	7
#define CLD_EXITED	1
#define CLD_KILLED	2
#define SYS_SECCOMP	1	// SIGSYS from a seccomp filter's SECCOMP_RET_TRAP
#define CLD_DUMPED	3
#define CLD_TRAPPED	4
#define CLD_STOPPED	5
#define CLD_CONTINUED	6
#define TRAP_BRKPT	1
#define TRAP_TRACE	2

static inline uint64_t sigmask_of(int sig)
{
	return 1ULL << (sig - 1);
}

// struct sigaction as rt_sigaction passes it on x86-64.
struct k_sigaction {
	uint64_t handler;
	uint64_t flags;
	uint64_t restorer;
	uint64_t mask;
};

// What the kernel records about a signal; turned into a siginfo_t for
// SA_SIGINFO handlers.
struct ksiginfo {
	int signo;
	int code;
	int errno_;
	int pid;
	int uid;
	int status;
	uint64_t addr;
	uint64_t value;
	// SI_TIMER: the timer, its overrun count and the rearm cookie
	// (Linux's si_sys_private; 0 for a one-shot timer).
	int timerid, overrun, sys_private;
	bool timer;		// a POSIX timer's (not a forged SI_TIMER)
	// Signal-driven I/O's (fs/sigio.h): si_band and si_fd.
	bool poll;
	int64_t band;
	int fd;
};

// The 128-byte siginfo_t layout of Linux x86-64 (the fields we fill).
struct user_siginfo {
	int32_t si_signo;
	int32_t si_errno;
	int32_t si_code;
	int32_t pad0;
	union {
		struct {
			int32_t pid;
			uint32_t uid;
			int32_t status;		// SIGCHLD
		} kill;
		uint64_t addr;			// SIGSEGV, SIGBUS, SIGILL, SIGFPE
		uint8_t raw[112];
	} u;
};

struct user_stack_t {
	uint64_t ss_sp;
	int32_t ss_flags;
	int32_t pad;
	uint64_t ss_size;
};

#endif
