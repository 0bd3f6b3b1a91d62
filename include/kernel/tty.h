// Terminals as sessions see them: the controlling terminal, its session
// and its foreground process group (kernel/proc/session.c).  A terminal
// driver (the console, kernel/fs/devices.c) embeds a struct tty and asks
// these functions before it reads, writes or changes its settings.
#ifndef KERNEL_TTY_H
#define KERNEL_TTY_H

#include <stdint.h>
#include <stdbool.h>
#include <uapi/signal.h>
#include <uapi/termios.h>

// Under proc_tree_lock.
struct vnode;

// The console's device number, (major << 8) | minor as vnodes keep it:
// /dev/console, 5:1.
#define CONSOLE_RDEV	((5 << 8) | 1)

struct tty {
	int session;		// the session it controls, 0: none
	int fg_pgrp;		// its foreground process group, 0: none
	struct vnode *vn;	// what /dev/tty opens for it (NULL: /dev/tty itself)
	bool hung_up;		// for good: no session may take it any more
};

// With ISIG, the INTR, QUIT and SUSP characters (^C, ^\, ^Z) are not
// input but a signal to the foreground group: the signal c stands for
// under t, or 0.  The console and the pseudo-terminals share it.
static inline int tty_signal_char(const struct kernel_termios *t, char c)
{
	if (!(t->c_lflag & ISIG) || c == 0)		// 0: _POSIX_VDISABLE
		return 0;
	if ((uint8_t)c == t->c_cc[VINTR])
		return SIGINT;
	if ((uint8_t)c == t->c_cc[VQUIT])
		return SIGQUIT;
	if ((uint8_t)c == t->c_cc[VSUSP])
		return SIGTSTP;
	return 0;
}

// Job control before an operation on tty by the current process: 0 to go
// on; -ERESTARTSYS after sending SIGTTIN (read) or SIGTTOU (write with
// TOSTOP, or a change of settings) to a background group; -EIO where
// Linux gives it (an orphaned group, or SIGTTIN ignored or blocked).
long tty_check_read(struct tty *tty);
long tty_check_change(struct tty *tty);

// Opening a terminal without O_NOCTTY: a session leader without one
// makes it its controlling terminal if no other session has it.
void tty_open_ctty(struct tty *tty);

// TIOCSCTTY, TIOCNOTTY, TIOCGPGRP, TIOCSPGRP, TIOCGSID: Linux's answers
// and errnos; 'arg' is the user's argument.
long tty_ioctl_job(struct tty *tty, unsigned cmd, uint64_t arg);

// The terminal hangs up (a pty's master closed): its session leader gets
// SIGHUP and SIGCONT, and the session loses it.
void tty_hangup(struct tty *tty);

// /dev/tty: the current process's controlling terminal, with a reference
// to its vnode in *vn (NULL when it has none: the console); -ENXIO when
// the process has no controlling terminal.
int tty_ctty_get(struct tty **tty, struct vnode **vn);

// ISIG characters: sig to the foreground group (to 'fallback' when no
// session has the terminal).  Callable from interrupt context.
void tty_signal_fg(struct tty *tty, int sig, int fallback);

#endif
