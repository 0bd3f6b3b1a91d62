// personality(2): Linux's execution domains and the flags that change a
// process's ABI (include/uapi/linux/personality.h).
#ifndef UAPI_PERSONALITY_H
#define UAPI_PERSONALITY_H

#define PER_LINUX		0x0000
#define PER_LINUX32		0x0008	// uname reports the 32-bit machine
#define PER_MASK		0x00ff	// the execution domain

#define UNAME26			0x0020000
#define ADDR_NO_RANDOMIZE	0x0040000
#define FDPIC_FUNCPTRS		0x0080000
#define MMAP_PAGE_ZERO		0x0100000
#define ADDR_COMPAT_LAYOUT	0x0200000
#define READ_IMPLIES_EXEC	0x0400000
#define ADDR_LIMIT_32BIT	0x0800000
#define SHORT_INODE		0x1000000
#define WHOLE_SECONDS		0x2000000
#define STICKY_TIMEOUTS		0x4000000	// select/pselect leave the timeout as it is
#define ADDR_LIMIT_3GB		0x8000000

// What an exec of a set-user-ID or set-group-ID program clears.
#define PER_CLEAR_ON_SETID	(READ_IMPLIES_EXEC | ADDR_NO_RANDOMIZE | MMAP_PAGE_ZERO | \
				 ADDR_LIMIT_32BIT | ADDR_LIMIT_3GB)

#endif
