// Linux x86-64 values of mmap's MAP_ flags and mlockall's MCL_ flags
// (ppc64 has its own MAP_NORESERVE, MAP_LOCKED and MCL_ values and no
// MAP_32BIT).
#ifndef UAPI_MMAN_H
#define UAPI_MMAN_H

#define MAP_SHARED		0x01
#define MAP_PRIVATE		0x02
#define MAP_SHARED_VALIDATE	0x03
#define MAP_TYPE		0x0f
#define MAP_FIXED		0x10
#define MAP_ANONYMOUS		0x20
#define MAP_GROWSDOWN		0x0100
#define MAP_DENYWRITE		0x0800
#define MAP_EXECUTABLE		0x1000
#define MAP_LOCKED		0x2000
#define MAP_NORESERVE		0x4000
#define MAP_POPULATE		0x8000
#define MAP_NONBLOCK		0x10000
#define MAP_STACK		0x20000
#define MAP_HUGETLB		0x40000
#define MAP_FIXED_NOREPLACE	0x100000

#define MAP_32BIT		0x40

#define MCL_CURRENT	1
#define MCL_FUTURE	2
#define MCL_ONFAULT	4

#endif
