// The terminal part of Linux's ABI (x86-64 values): the kernel's struct
// termios and winsize, the flag bits and c_cc slots the console and the
// pseudo-terminals interpret, and the ioctls they answer.
#ifndef UAPI_TERMIOS_H
#define UAPI_TERMIOS_H

#include <stdint.h>

// The kernel's struct termios (TCGETS), 36 bytes.
struct kernel_termios {
	uint32_t c_iflag, c_oflag, c_cflag, c_lflag;
	uint8_t c_line;
	uint8_t c_cc[19];
};

struct kernel_winsize {
	uint16_t ws_row, ws_col, ws_xpixel, ws_ypixel;
};

// c_iflag
#define INLCR	0000100
#define IGNCR	0000200
#define ICRNL	0000400
#define IXON	0002000
// c_oflag
#define OPOST	0000001
#define ONLCR	0000004
// c_lflag
#define ISIG	0000001
#define ICANON	0000002
#define ECHO	0000010
#define ECHOE	0000020
#define ECHOK	0000040
#define ECHONL	0000100
#define NOFLSH	0000200
#define TOSTOP	0000400
#define ECHOCTL	0001000
#define ECHOKE	0004000
#define IEXTEN	0100000
// c_cc
#define VINTR	0
#define VQUIT	1
#define VERASE	2
#define VKILL	3
#define VEOF	4
#define VMIN	6
#define VSUSP	10

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

#endif
