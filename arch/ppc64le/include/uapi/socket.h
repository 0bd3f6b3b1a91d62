// Linux ppc64 values of the SOL_SOCKET options: SO_RCVLOWAT through
// SO_PEERCRED differ from x86-64's.
#ifndef UAPI_SOCKET_H
#define UAPI_SOCKET_H

#define SO_DEBUG	1
#define SO_REUSEADDR	2
#define SO_TYPE	3
#define SO_ERROR	4
#define SO_DONTROUTE	5
#define SO_BROADCAST	6
#define SO_SNDBUF	7
#define SO_RCVBUF	8
#define SO_KEEPALIVE	9
#define SO_OOBINLINE	10
#define SO_PRIORITY	12
#define SO_LINGER	13
#define SO_BSDCOMPAT	14
#define SO_PASSCRED	20
#define SO_PEERCRED	21
#define SO_RCVLOWAT	16
#define SO_SNDLOWAT	17
#define SO_RCVTIMEO_OLD	18
#define SO_SNDTIMEO_OLD	19
#define SO_ACCEPTCONN	30
#define SO_SNDBUFFORCE	32
#define SO_RCVBUFFORCE	33
#define SO_PROTOCOL	38
#define SO_DOMAIN	39
#define SO_PEEK_OFF	42
#define SO_RCVTIMEO_NEW	66
#define SO_SNDTIMEO_NEW	67

#endif
