// Linux ppc64 values of mmap's MAP_ flags and mlockall's MCL_ flags:
// MAP_NORESERVE, MAP_LOCKED and MCL_ differ from x86-64's, and there is
// no MAP_32BIT (0 here: a flag no caller can pass).
#ifndef UAPI_MMAN_H
#define UAPI_MMAN_H

#define MAP_SHARED		0x1
#define MAP_PRIVATE		0x2
#define MAP_SHARED_VALIDATE		0x3
#define MAP_TYPE		0xf
#define MAP_FIXED		0x10
#define MAP_ANONYMOUS		0x20
#define MAP_GROWSDOWN		0x100
#define MAP_DENYWRITE		0x800
#define MAP_EXECUTABLE		0x1000
#define MAP_LOCKED		0x80
#define MAP_NORESERVE		0x40
#define MAP_POPULATE		0x8000
#define MAP_NONBLOCK		0x10000
#define MAP_STACK		0x20000
#define MAP_HUGETLB		0x40000
#define MAP_FIXED_NOREPLACE		0x100000

#define MAP_32BIT		0

#define MCL_CURRENT	0x2000
#define MCL_FUTURE	0x4000
#define MCL_ONFAULT	0x8000

#endif
