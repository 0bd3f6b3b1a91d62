// The ioctl numbers of Linux x86-64 that Switchyard answers.  They are
// per arch: ppc64 encodes _IOR/_IOW otherwise and numbers most terminal
// ioctls otherwise.
#ifndef UAPI_IOCTLS_H
#define UAPI_IOCTLS_H

// Terminals (the console, pseudo-terminals).
#define TCGETS		0x5401
#define TCSETS		0x5402
#define TCSETSW		0x5403
#define TCSETSF		0x5404
#define TCSBRK		0x5409
#define TCXONC		0x540A
#define TCFLSH		0x540B
#define TIOCOUTQ	0x5411
#define TIOCGWINSZ	0x5413
#define TIOCSWINSZ	0x5414
#define FIONREAD	0x541B
#define TCIFLUSH	0		// TCFLSH queues
#define TCOFLUSH	1
#define TCIOFLUSH	2
#define TCOON		1		// TCXONC actions
#define TCION		3
#define TIOCSCTTY	0x540E
#define TIOCGPGRP	0x540F
#define TIOCSPGRP	0x5410
#define TIOCNOTTY	0x5422
#define TIOCGSID	0x5429
#define TIOCGPTN	0x80045430	// _IOR('T', 0x30, unsigned int)
#define TIOCSPTLCK	0x40045431	// _IOW('T', 0x31, int)
#define TIOCGPTLCK	0x80045439	// _IOR('T', 0x39, int)

// Any descriptor.
#define FIONBIO		0x5421
#define FIONCLEX	0x5450
#define FIOCLEX		0x5451
#define FIOASYNC	0x5452

// Sockets: the queue sizes (FIONREAD's and TIOCOUTQ's numbers).
#define SIOCINQ		0x541b
#define SIOCOUTQ	0x5411

// timerfd (CONFIG_CHECKPOINT_RESTORE).
#define TFD_IOC_SET_TICKS	0x40085400U	// _IOW('T', 0, u64)

#endif
