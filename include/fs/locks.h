// File locks (kernel/fs/locks.c): POSIX record locks (fcntl F_SETLK,
// F_SETLKW, F_GETLK), open-file-description locks (F_OFD_*) and flock(2),
// with Linux's owners, conflicts and lifetimes:
//
// - a POSIX lock belongs to the descriptor table of its setter (Linux's
//   fl_owner = current->files: the threads of a process share them) and
//   goes when that table closes any descriptor of the file;
// - an OFD lock and a flock lock belong to the open file description and
//   go with its last reference;
// - POSIX and OFD locks conflict with each other; flock locks only with
//   flock locks.
#ifndef FS_LOCKS_H
#define FS_LOCKS_H

#include <stdbool.h>
#include <stdint.h>

struct file;
struct fdtable;
struct vnode;

#define F_RDLCK		0
#define F_WRLCK		1
#define F_UNLCK		2

// struct flock of x86-64 (32 bytes).
struct user_flock {
	int16_t l_type;
	int16_t l_whence;
	int32_t pad0;
	int64_t l_start;
	int64_t l_len;
	int32_t l_pid;
	int32_t pad1;
};

// fcntl's lock commands on f, a descriptor of the caller's table 'fdt'
// (F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW);
// 'ulock' is the user's struct flock.
long locks_fcntl(struct file *f, struct fdtable *fdt, int cmd, uint64_t ulock);
// flock(2) on f: LOCK_SH, LOCK_EX, LOCK_UN, with LOCK_NB.
long locks_flock(struct file *f, int op);

// A descriptor of table 'fdt' for f is closed: the table's POSIX locks
// on the file go.
void locks_remove_posix(struct file *f, struct fdtable *fdt);
// f's last reference is going: its OFD and flock locks go.
void locks_remove_file(struct file *f);

#endif
