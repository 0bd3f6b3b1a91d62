// The ioctl numbers of Linux ppc64 that Switchyard answers: _IOR is
// 0x4... and _IOW 0x8... here, and most terminal ioctls are 't' ones.
#ifndef UAPI_IOCTLS_H
#define UAPI_IOCTLS_H

// Terminals (the console, pseudo-terminals).
#define TCGETS	0x402c7413
#define TCSETS	0x802c7414
#define TCSETSW	0x802c7415
#define TCSETSF	0x802c7416
#define TCSBRK	0x2000741d
#define TCXONC	0x2000741e
#define TCFLSH	0x2000741f
#define TIOCOUTQ	0x40047473
#define TIOCGWINSZ	0x40087468
#define TIOCSWINSZ	0x80087467
#define FIONREAD	0x4004667f
#define TCIFLUSH	0		// TCFLSH queues
#define TCOFLUSH	1
#define TCIOFLUSH	2
#define TCOON		1		// TCXONC actions
#define TCION		3
#define TIOCSCTTY	0x540e
#define TIOCGPGRP	0x40047477
#define TIOCSPGRP	0x80047476
#define TIOCNOTTY	0x5422
#define TIOCGSID	0x5429
#define TIOCGPTN	0x40045430
#define TIOCSPTLCK	0x80045431
#define TIOCGPTLCK	0x40045439

// Any descriptor.
#define FIONBIO	0x8004667e
#define FIONCLEX	0x20006602
#define FIOCLEX	0x20006601
#define FIOASYNC	0x8004667d

// Sockets: the queue sizes (FIONREAD's and TIOCOUTQ's numbers).
#define SIOCINQ		0x4004667f
#define SIOCOUTQ	0x40047473

// timerfd (CONFIG_CHECKPOINT_RESTORE).
#define TFD_IOC_SET_TICKS	0x80085400U

#endif
