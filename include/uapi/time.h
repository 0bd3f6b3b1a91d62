// The time structures of the Linux x86-64 ABI that system calls copy in
// and out.
#ifndef UAPI_TIME_H
#define UAPI_TIME_H

#include <stdint.h>

struct user_timespec {
	int64_t tv_sec;
	int64_t tv_nsec;
};

struct user_timeval {
	int64_t tv_sec;
	int64_t tv_usec;
};

#endif
