// The Linux values of the open flags, file modes and related constants
// that user space passes to the file system calls: the O_ flags from the
// arch's uapi/open_flags.h, the rest the same on every 64-bit arch.
#ifndef FS_FCNTL_H
#define FS_FCNTL_H

#include <uapi/open_flags.h>	// O_*: their values differ between archs

// The flags F_SETFL may change; the others it silently ignores.  O_ASYNC
// sticks only on files with a fasync method (file_has_fasync).
#define O_SETFL_MASK	(O_APPEND | O_NONBLOCK | O_ASYNC | O_DIRECT | O_NOATIME)

#define AT_FDCWD		(-100)
#define AT_SYMLINK_NOFOLLOW	0x100
#define AT_REMOVEDIR		0x200
#define AT_EACCESS		0x200
#define AT_SYMLINK_FOLLOW	0x400
#define AT_NO_AUTOMOUNT		0x800
#define AT_EMPTY_PATH		0x1000
#define AT_STATX_SYNC_TYPE	0x6000

#define F_DUPFD		0
#define F_GETFD		1
#define F_SETFD		2
#define F_GETFL		3
#define F_SETFL		4
#define F_GETLK		5
#define F_SETLK		6
#define F_SETLKW	7
#define F_SETOWN	8
#define F_GETOWN	9
#define F_OFD_GETLK	36
#define F_OFD_SETLK	37
#define F_OFD_SETLKW	38
#define F_SETLEASE	1024
#define F_GETLEASE	1025
#define F_DUPFD_CLOEXEC	1030
#define F_SETPIPE_SZ	1031
#define F_GETPIPE_SZ	1032
#define F_ADD_SEALS	1033
#define F_GET_SEALS	1034
#define FD_CLOEXEC	1

#define SEEK_SET	0
#define SEEK_CUR	1
#define SEEK_END	2
#define SEEK_DATA	3
#define SEEK_HOLE	4

#define S_IFMT		0170000
#define S_IFSOCK	0140000
#define S_IFLNK		0120000
#define S_IFREG		0100000
#define S_IFBLK		0060000
#define S_IFDIR		0040000
#define S_IFCHR		0020000
#define S_IFIFO		0010000
#define S_ISUID		0004000
#define S_ISGID		0002000
#define S_ISVTX		0001000
#define S_IXGRP		0000010

#define RENAME_NOREPLACE	1
#define RENAME_EXCHANGE		2
#define RENAME_WHITEOUT		4

// d_type values of getdents64.
#define DT_UNKNOWN	0
#define DT_FIFO		1
#define DT_CHR		2
#define DT_DIR		4
#define DT_BLK		6
#define DT_REG		8
#define DT_LNK		10
#define DT_SOCK		12

#define NAME_MAX	255
#define PIPE_BUF	4096
// Descriptor limits, Linux's: fs.nr_open (RLIMIT_NOFILE's ceiling, even
// for root) and init's RLIMIT_NOFILE (INR_OPEN_CUR, INR_OPEN_MAX).
#define NR_OPEN		1048576
#define NOFILE_CUR	1024
#define NOFILE_MAX	4096
#define RLIMIT_NOFILE_INDEX 7

#endif
