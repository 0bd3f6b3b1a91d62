// The terminal part of Linux's ABI, ppc64 values: the kernel's struct
// termios (c_cc before c_line, the speeds after) and winsize, and the
// flag bits and c_cc slots the console and the pseudo-terminals
// interpret.  The ioctls they answer are in uapi/ioctls.h.
#ifndef UAPI_TERMIOS_H
#define UAPI_TERMIOS_H

#include <stdint.h>
#include <uapi/ioctls.h>

// The kernel's struct termios (TCGETS), 44 bytes.
struct kernel_termios {
	uint32_t c_iflag, c_oflag, c_cflag, c_lflag;
	uint8_t c_cc[19];
	uint8_t c_line;
	uint32_t c_ispeed, c_ospeed;
};

struct kernel_winsize {
	uint16_t ws_row, ws_col, ws_xpixel, ws_ypixel;
};

// c_iflag
#define INLCR	0000100
#define IGNCR	0000200
#define ICRNL	0000400
#define IXON	0001000
// c_oflag
#define OPOST	0000001
#define ONLCR	0000002
// c_lflag
#define ISIG	0x80
#define ICANON	0x100
#define ECHO	0x8
#define ECHOE	0x2
#define ECHOK	0x4
#define ECHONL	0x10
#define NOFLSH	0x80000000
#define TOSTOP	0x400000
#define ECHOCTL	0x40
#define ECHOKE	0x1
#define IEXTEN	0x400
// c_cc
#define VINTR	0
#define VQUIT	1
#define VERASE	2
#define VKILL	3
#define VEOF	4
#define VMIN	5
#define VSUSP	12

// A new terminal's c_cc in ppc64's slots: intr ^C, quit ^\, erase DEL,
// kill ^U, eof ^D, min 1, eol 0, time 0, eol2 0, swtc 0, werase ^W,
// reprint ^R, susp ^Z, start ^Q, stop ^S, lnext ^V, discard ^O.
#define TERMIOS_INIT_CC { 3, 034, 0177, 025, 4, 1, 0, 0, 0, 0, 027, 022, 032, 021, 023, 026, 017 }

#endif
