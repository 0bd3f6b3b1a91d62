// The terminal part of Linux's ABI (x86-64 values; ppc64 lays struct
// termios out otherwise and numbers its flags and c_cc slots otherwise):
// the kernel's struct termios and winsize, and the flag bits and c_cc
// slots the console and the pseudo-terminals interpret.  The ioctls they
// answer are in uapi/ioctls.h.
#ifndef UAPI_TERMIOS_H
#define UAPI_TERMIOS_H

#include <stdint.h>
#include <uapi/ioctls.h>

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

// A new terminal's c_cc (Linux's INIT_C_CC for x86): intr ^C, quit ^\,
// erase DEL, kill ^U, eof ^D, time 0, min 1, swtc 0, start ^Q, stop ^S,
// susp ^Z, eol 0, reprint ^R, discard ^O, werase ^W, lnext ^V, eol2 0.
#define TERMIOS_INIT_CC { 3, 034, 0177, 025, 4, 0, 1, 0, 021, 023, 032, 0, 022, 017, 027, 026, 0 }

#endif
