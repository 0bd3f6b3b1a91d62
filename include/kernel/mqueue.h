// POSIX message queues (kernel/ipc/mqueue.c): mq_open and friends, as
// Linux 6.1's ipc/mqueue.c.  The queues are files of /dev/mqueue.
#ifndef KERNEL_MQUEUE_H
#define KERNEL_MQUEUE_H

#include <stdbool.h>
#include <stdint.h>

// The settings of /proc/sys/fs/mqueue, Linux's defaults at boot.
enum mq_limit {
	MQ_QUEUES_MAX,		// queues at most (CAP_SYS_RESOURCE passes it)
	MQ_MSG_MAX,		// the largest mq_maxmsg without CAP_SYS_RESOURCE
	MQ_MSGSIZE_MAX,		// the largest mq_msgsize without it
	MQ_MSG_DEFAULT,		// mq_maxmsg of a queue made without attributes
	MQ_MSGSIZE_DEFAULT,	// its mq_msgsize
	MQ_NLIMITS
};
int mq_limit(enum mq_limit which);
// 0, or -EINVAL outside the setting's range (Linux's minmax bounds).
int mq_set_limit(enum mq_limit which, int64_t value);

// RLIMIT_MSGQUEUE of init, Linux's MQ_BYTES_MAX.
#define MQ_BYTES_MAX	819200

// Boot: the /dev/mqueue directory.  0 or a negative errno.
int mqueue_init(void);

#endif
