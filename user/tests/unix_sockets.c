// AF_UNIX sockets, against Linux 6.1's behaviour: socket/socketpair
// argument errors (EAFNOSUPPORT, EINVAL, ESOCKTNOSUPPORT, EPROTONOSUPPORT,
// ENOTSOCK), streams (read/write, send/recv, 1 MiB across fork, EOF,
// EPIPE and SIGPIPE, MSG_NOSIGNAL, ECONNRESET, shutdown's effects,
// MSG_PEEK, MSG_WAITALL, MSG_DONTWAIT and SOCK_NONBLOCK), datagram and
// seqpacket message boundaries and MSG_TRUNC, named sockets (bind's
// S_IFSOCK node, EADDRINUSE, getsockname/getpeername lengths, autobind,
// abstract names, connect's ENOENT/ECONNREFUSED/EPROTOTYPE/EISCONN/EACCES,
// listen and accept4, the backlog), datagram EPERM/ECONNREFUSED/ENOTCONN
// and the queue limit, SCM_RIGHTS (across fork, MSG_CMSG_CLOEXEC,
// MSG_CTRUNC, a receiver closing, cycles), SCM_CREDENTIALS and
// SO_PASSCRED, SO_PEERCRED, the socket options, poll and epoll bits,
// readv/writev, sendmmsg/recvmmsg, fstat and /proc/self/fd.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/ioctl.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>		// TCGETS names struct termios on some arches
#include <unistd.h>

#include "testcase.h"
#include "sysutil.h"

static int on_switchyard;

static int pair(int type, int sv[2])
{
	if (socketpair(AF_UNIX, type, 0, sv) < 0) {
		fail("socketpair(%d): errno=%d", type, errno);
		return -1;
	}
	return 0;
}

static void close2(int sv[2])
{
	close(sv[0]);
	close(sv[1]);
}

static socklen_t path_addr(struct sockaddr_un *a, const char *path)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	strncpy(a->sun_path, path, sizeof(a->sun_path) - 1);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path) + 1);
}

// An abstract name unique to this process: "\0unix-test-PID-TAG".
static socklen_t abstract_addr(struct sockaddr_un *a, const char *tag)
{
	int n;

	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	n = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1, "unix-test-%d-%s", (int)getpid(), tag);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

// A listening stream socket on a scratch path.
static int listener(const char *name, int type, int backlog, struct sockaddr_un *a, socklen_t *len)
{
	int fd = socket(AF_UNIX, type, 0);

	*len = path_addr(a, scratch(name));
	unlink(a->sun_path);
	if (fd < 0 || bind(fd, (struct sockaddr *)a, *len) < 0 || listen(fd, backlog) < 0) {
		fail("listener %s: errno=%d", name, errno);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

// ---- socket() and socketpair() arguments ----

static void socket_argument_errors(void)
{
	int sv[2], fd, p[2];

	check_errno(socket(AF_MAX, SOCK_STREAM, 0), EAFNOSUPPORT, "socket(AF_MAX)");
	check_errno(socket(1000, SOCK_STREAM, 0), EAFNOSUPPORT, "socket(1000)");
	check_errno(socket(AF_UNIX, 11, 0), EINVAL, "type 11");
	check_errno(socket(AF_UNIX, SOCK_STREAM | 0x10, 0), EINVAL, "flag 0x10 in type");
	check_errno(socket(AF_UNIX, SOCK_RDM, 0), ESOCKTNOSUPPORT, "SOCK_RDM");
	check_errno(socket(AF_UNIX, 0, 0), ESOCKTNOSUPPORT, "type 0");
	check_errno(socket(AF_UNIX, SOCK_STREAM, 2), EPROTONOSUPPORT, "protocol 2");
	check_errno(socket(AF_UNIX, 11, 2), EINVAL, "type before protocol");
	fd = socket(AF_UNIX, SOCK_STREAM, PF_UNIX);
	check_ok(fd, "protocol PF_UNIX");
	close(fd);
	fd = socket(AF_UNIX, SOCK_RAW, 0);		// unix_create makes it SOCK_DGRAM
	if (check_ok(fd, "SOCK_RAW")) {
		int t = 0;
		socklen_t l = sizeof(t);
		getsockopt(fd, SOL_SOCKET, SO_TYPE, &t, &l);
		check(t == SOCK_DGRAM, "SOCK_RAW became SOCK_DGRAM");
		close(fd);
	}
	if (on_switchyard) {
		check_errno(socket(AF_INET, SOCK_STREAM, 0), EAFNOSUPPORT, "AF_INET");
		check_errno(socket(AF_INET6, SOCK_DGRAM, 0), EAFNOSUPPORT, "AF_INET6");
		check_errno(socket(AF_NETLINK, SOCK_RAW, 0), EAFNOSUPPORT, "AF_NETLINK");
		check_errno(socketpair(AF_INET, SOCK_STREAM, 0, sv), EAFNOSUPPORT, "socketpair AF_INET");
	} else {
		check_errno(socketpair(AF_INET, SOCK_STREAM, 0, sv), EOPNOTSUPP, "socketpair AF_INET");
	}
	check_errno(syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, (void *)8), EFAULT,
		    "socketpair EFAULT");
	if (pipe(p) == 0) {
		check_errno(listen(p[0], 1), ENOTSOCK, "listen on a pipe");
		check_errno(send(p[1], "x", 1, 0), ENOTSOCK, "send on a pipe");
		check_errno(shutdown(p[0], SHUT_RD), ENOTSOCK, "shutdown on a pipe");
		check_errno(getsockopt(p[0], SOL_SOCKET, SO_TYPE, &fd, &(socklen_t){ 4 }), ENOTSOCK,
			    "getsockopt on a pipe");
		close(p[0]);
		close(p[1]);
	}
	check_errno(listen(-1, 1), EBADF, "listen(-1)");
	check_errno(accept4(-1, NULL, NULL, 0), EBADF, "accept4(-1)");
	check_errno(recv(9999, &fd, 1, 0), EBADF, "recv(9999)");
}

static int getint(int fd, int name)
{
	int v = -12345;
	socklen_t l = sizeof(v);

	if (getsockopt(fd, SOL_SOCKET, name, &v, &l) < 0)
		return -12345;
	return v;
}

static int getint_err(int fd)
{
	int v = -1;
	socklen_t l = sizeof(v);

	getsockopt(fd, SOL_SOCKET, SO_ERROR, &v, &l);
	return v;
}

// ---- streams ----

static void stream_pair_read_write(void)
{
	char buf[64], link[64], want[64];
	struct stat st;
	int sv[2];

	if (pair(SOCK_STREAM, sv))
		return;
	check(write(sv[0], "hello", 5) == 5, "write");
	check(read(sv[1], buf, sizeof(buf)) == 5 && !memcmp(buf, "hello", 5), "read");
	check(send(sv[1], "back", 4, 0) == 4, "send");
	check(recv(sv[0], buf, sizeof(buf), 0) == 4 && !memcmp(buf, "back", 4), "recv");
	check(read(sv[0], buf, 0) == 0, "read of 0 bytes");
	check_ok(fstat(sv[0], &st), "fstat");
	check(S_ISSOCK(st.st_mode), "S_IFSOCK");
	snprintf(want, sizeof(want), "socket:[%lu]", (unsigned long)st.st_ino);
	snprintf(buf, sizeof(buf), "/proc/self/fd/%d", sv[0]);
	ssize_t n = readlink(buf, link, sizeof(link) - 1);
	check(n > 0 && (link[n] = 0, !strcmp(link, want)), "/proc/self/fd link socket:[INO]");
	check_errno(open(buf, O_RDWR), ENXIO, "reopen through /proc");
	check_errno(lseek(sv[0], 0, SEEK_SET), ESPIPE, "lseek");
	check_errno(pread(sv[0], buf, 1, 0), ESPIPE, "pread");
	check(fcntl(sv[0], F_GETFL) == O_RDWR, "F_GETFL is O_RDWR");
	close2(sv);
}

static void stream_megabyte_across_fork(void)
{
	static char buf[65536];
	unsigned long sum = 0, want = 0;
	size_t got = 0, total = 1 << 20;
	int sv[2];
	pid_t pid;

	if (pair(SOCK_STREAM, sv))
		return;
	for (size_t i = 0; i < total; i++)
		want += (i * 7) & 0xff;
	pid = fork_child();
	if (pid == 0) {
		close(sv[0]);
		for (size_t off = 0; off < total;) {
			size_t n = sizeof(buf);
			for (size_t i = 0; i < n; i++)
				buf[i] = (char)(((off + i) * 7) & 0xff);
			ssize_t w = write(sv[1], buf, n);
			if (w <= 0)
				_exit(1);
			off += (size_t)w;
			if ((size_t)w < n)
				_exit(2);
		}
		_exit(0);
	}
	close(sv[1]);
	for (;;) {
		ssize_t r = read(sv[0], buf, sizeof(buf));
		if (r <= 0)
			break;
		for (ssize_t i = 0; i < r; i++)
			sum += (unsigned char)buf[i];
		got += (size_t)r;
	}
	check(got == total, "all bytes arrived");
	check(sum == want, "checksum");
	check_child_ok(pid, "writer");
	close(sv[0]);
}

static void stream_eof_epipe_sigpipe(void)
{
	char c;
	int sv[2];
	pid_t pid;

	if (pair(SOCK_STREAM, sv))
		return;
	close(sv[1]);
	check(read(sv[0], &c, 1) == 0, "EOF after the peer closed");
	signal(SIGPIPE, SIG_IGN);
	check_errno(write(sv[0], "x", 1), EPIPE, "write: EPIPE");
	check_errno(send(sv[0], "x", 1, MSG_NOSIGNAL), EPIPE, "send MSG_NOSIGNAL: EPIPE");
	signal(SIGPIPE, SIG_DFL);
	pid = fork_child();
	if (pid == 0) {
		send(sv[0], "x", 1, MSG_NOSIGNAL);	// no signal
		write(sv[0], "x", 1);			// SIGPIPE
		_exit(0);
	}
	check_killed_by(pid, SIGPIPE, "writer to a closed peer");
	close(sv[0]);
}

static void stream_econnreset(void)
{
	char c;
	int sv[2];

	if (pair(SOCK_STREAM, sv))
		return;
	write(sv[1], "a", 1);		// sv[0]'s unread data
	write(sv[0], "b", 1);
	close(sv[0]);
	check(read(sv[1], &c, 1) == 1 && c == 'b', "data before the reset");
	check_errno(read(sv[1], &c, 1), ECONNRESET, "ECONNRESET");
	check(read(sv[1], &c, 1) == 0, "then EOF");
	close(sv[1]);
}

static void stream_shutdown(void)
{
	struct pollfd pfd;
	char buf[8];
	int sv[2], fd;

	if (pair(SOCK_STREAM, sv))
		return;
	check_errno(shutdown(sv[0], 3), EINVAL, "how 3");
	check_errno(shutdown(sv[0], -1), EINVAL, "how -1");
	write(sv[0], "q", 1);
	check_ok(shutdown(sv[0], SHUT_WR), "SHUT_WR");
	check(read(sv[1], buf, 8) == 1, "data before EOF");
	check(read(sv[1], buf, 8) == 0, "EOF after SHUT_WR");
	pfd = (struct pollfd){ sv[1], POLLIN | POLLOUT | POLLRDHUP, 0 };
	check(poll(&pfd, 1, 0) == 1 && pfd.revents == (POLLIN | POLLOUT | POLLRDHUP),
	      "peer of SHUT_WR: POLLIN|POLLOUT|POLLRDHUP");
	check(write(sv[1], "r", 1) == 1 && read(sv[0], buf, 8) == 1, "other direction works");
	check_errno(send(sv[0], "x", 1, MSG_NOSIGNAL), EPIPE, "send after SHUT_WR");
	check_ok(shutdown(sv[1], SHUT_WR), "SHUT_WR both");
	pfd = (struct pollfd){ sv[0], POLLIN | POLLOUT | POLLRDHUP, 0 };
	check(poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLHUP | POLLRDHUP)) == (POLLHUP | POLLRDHUP),
	      "both shut: POLLHUP");
	close2(sv);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	check_ok(shutdown(fd, SHUT_RDWR), "shutdown of an unconnected unix socket");
	close(fd);
	if (pair(SOCK_STREAM, sv))
		return;
	write(sv[1], "z", 1);
	check_ok(shutdown(sv[0], SHUT_RD), "SHUT_RD");
	check(read(sv[0], buf, 8) == 1, "queued data still readable");
	check(read(sv[0], buf, 8) == 0, "then EOF");
	check_errno(send(sv[1], "x", 1, MSG_NOSIGNAL), EPIPE, "peer of SHUT_RD: EPIPE");
	close2(sv);
}

static void stream_nonblocking(void)
{
	char buf[4096];
	int sv[2], fd, size = 4096;
	long total = 0;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) < 0)
		return (void)fail("socketpair nonblock");
	check(fcntl(sv[0], F_GETFL) & O_NONBLOCK, "SOCK_NONBLOCK sets O_NONBLOCK");
	check_errno(read(sv[0], buf, 1), EAGAIN, "read EAGAIN");
	check_errno(recv(sv[0], buf, 1, 0), EAGAIN, "recv EAGAIN");
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	memset(buf, 'x', sizeof(buf));
	for (int i = 0; i < 10000; i++) {
		ssize_t n = write(sv[0], buf, sizeof(buf));
		if (n < 0) {
			check_errno(n, EAGAIN, "full: EAGAIN");
			break;
		}
		total += n;
	}
	check(total > 0 && total < 10000L * 4096, "the send buffer fills");
	struct pollfd pfd = { sv[0], POLLOUT, 0 };
	check(poll(&pfd, 1, 0) == 0, "full: no POLLOUT");
	close2(sv);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	check(fcntl(fd, F_GETFD) == FD_CLOEXEC, "SOCK_CLOEXEC");
	close(fd);
	if (pair(SOCK_STREAM, sv))
		return;
	check_errno(recv(sv[0], buf, 1, MSG_DONTWAIT), EAGAIN, "MSG_DONTWAIT");
	close2(sv);
}

static void stream_peek_and_waitall(void)
{
	char buf[16];
	int sv[2];
	pid_t pid;

	if (pair(SOCK_STREAM, sv))
		return;
	write(sv[0], "abc", 3);
	write(sv[0], "def", 3);
	check(recv(sv[1], buf, 4, MSG_PEEK) == 4 && !memcmp(buf, "abcd", 4), "peek across writes");
	check(recv(sv[1], buf, 2, 0) == 2 && !memcmp(buf, "ab", 2), "read after peek");
	check(recv(sv[1], buf, 16, MSG_PEEK) == 4 && !memcmp(buf, "cdef", 4), "peek the rest");
	check(recv(sv[1], buf, 16, 0) == 4, "read the rest");
	pid = fork_child();
	if (pid == 0) {
		for (int i = 0; i < 4; i++) {
			sleep_ms(10);
			write(sv[0], "12", 2);
		}
		_exit(0);
	}
	check(recv(sv[1], buf, 8, MSG_WAITALL) == 8 && !memcmp(buf, "12121212", 8),
	      "MSG_WAITALL gathers 8 bytes");
	check_child_ok(pid, "writer");
	close2(sv);
}

// SO_PEEK_OFF: peeks go on where the last one stopped, reads move it back.
static void peek_offset(void)
{
	char buf[16];
	int sv[2], off = 0;

	if (pair(SOCK_STREAM, sv))
		return;
	check(getint(sv[1], SO_PEEK_OFF) == -1, "off by default");
	write(sv[0], "abc", 3);
	write(sv[0], "def", 3);
	setsockopt(sv[1], SOL_SOCKET, SO_PEEK_OFF, &off, sizeof(off));
	check(recv(sv[1], buf, 2, MSG_PEEK) == 2 && !memcmp(buf, "ab", 2), "stream peek 1");
	check(recv(sv[1], buf, 2, MSG_PEEK) == 2 && !memcmp(buf, "cd", 2), "stream peek 2 goes on");
	check(getint(sv[1], SO_PEEK_OFF) == 4, "offset 4");
	check(recv(sv[1], buf, 3, 0) == 3 && !memcmp(buf, "abc", 3), "a read takes from the start");
	check(getint(sv[1], SO_PEEK_OFF) == 1, "and moves the offset back");
	check(recv(sv[1], buf, 8, MSG_PEEK) == 2 && !memcmp(buf, "ef", 2), "peek from the offset");
	check_errno(recv(sv[1], buf, 8, MSG_PEEK | MSG_DONTWAIT), EAGAIN, "peeked all: EAGAIN");
	close2(sv);
	if (pair(SOCK_DGRAM, sv))
		return;
	send(sv[0], "one", 3, 0);
	send(sv[0], "two", 3, 0);
	setsockopt(sv[1], SOL_SOCKET, SO_PEEK_OFF, &off, sizeof(off));
	check(recv(sv[1], buf, 8, MSG_PEEK) == 3 && !memcmp(buf, "one", 3), "dgram peek 1");
	check(recv(sv[1], buf, 8, MSG_PEEK) == 3 && !memcmp(buf, "two", 3), "dgram peek 2");
	check_errno(recv(sv[1], buf, 8, MSG_PEEK | MSG_DONTWAIT), EAGAIN, "dgram peeked all");
	check(recv(sv[1], buf, 8, 0) == 3 && !memcmp(buf, "one", 3), "dgram read");
	check(getint(sv[1], SO_PEEK_OFF) == 3, "offset moved back by the datagram");
	close2(sv);
}

// ---- datagrams and seqpacket ----

static void dgram_boundaries_and_trunc(void)
{
	char buf[16];
	struct iovec iov = { buf, 3 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	int sv[2];

	if (pair(SOCK_DGRAM, sv))
		return;
	send(sv[0], "first", 5, 0);
	send(sv[0], "second", 6, 0);
	send(sv[0], "", 0, 0);
	send(sv[0], "truncated", 9, 0);
	send(sv[0], "long", 4, 0);
	check(recv(sv[1], buf, 16, 0) == 5, "first datagram whole");
	check(recv(sv[1], buf, 16, 0) == 6, "second datagram whole");
	check(recv(sv[1], buf, 16, 0) == 0, "empty datagram");
	check(recvmsg(sv[1], &mh, 0) == 3 && (mh.msg_flags & MSG_TRUNC), "cut: MSG_TRUNC flag");
	check(recv(sv[1], buf, 2, MSG_TRUNC) == 4, "MSG_TRUNC returns the whole length");
	check_errno(recv(sv[1], buf, 2, MSG_DONTWAIT), EAGAIN, "cut part is gone");
	check_ok(shutdown(sv[0], SHUT_WR), "datagram SHUT_WR");
	check_errno(send(sv[0], "x", 1, 0), EPIPE, "then sending: EPIPE (no SIGPIPE)");
	close2(sv);
	if (pair(SOCK_DGRAM, sv))
		return;
	int big = 300000;
	char *p = calloc(1, (size_t)big);
	check_errno(send(sv[0], p, (size_t)big, 0), EMSGSIZE, "larger than the send buffer");
	free(p);
	close2(sv);
}

static void seqpacket_pair(void)
{
	char buf[16];
	struct pollfd pfd;
	int sv[2], fd;

	if (pair(SOCK_SEQPACKET, sv))
		return;
	send(sv[0], "one", 3, 0);
	send(sv[0], "two!", 4, 0);
	check(recv(sv[1], buf, 16, 0) == 3, "boundary 1");
	check(recv(sv[1], buf, 2, MSG_TRUNC) == 4, "MSG_TRUNC");
	close(sv[0]);
	check(recv(sv[1], buf, 16, 0) == 0, "EOF after close");
	check(recv(sv[1], buf, 16, MSG_DONTWAIT) == 0, "EOF without waiting too");
	check_errno(send(sv[1], "x", 1, MSG_NOSIGNAL), EPIPE, "send to a closed peer");
	pfd = (struct pollfd){ sv[1], POLLIN | POLLOUT | POLLRDHUP, 0 };
	check(poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLHUP | POLLIN | POLLRDHUP)) ==
	      (POLLHUP | POLLIN | POLLRDHUP), "poll after the peer closed");
	close(sv[1]);
	fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	check_errno(send(fd, "x", 1, 0), ENOTCONN, "unconnected send");
	check_errno(recv(fd, buf, 1, 0), ENOTCONN, "unconnected recv");
	close(fd);
}

static void dgram_named(void)
{
	struct sockaddr_un a, b, from;
	socklen_t la, lb, lf;
	char buf[16];
	int s, c, d;

	la = path_addr(&a, scratch("dg-server"));
	lb = path_addr(&b, scratch("dg-client"));
	unlink(a.sun_path);
	unlink(b.sun_path);
	s = socket(AF_UNIX, SOCK_DGRAM, 0);
	c = socket(AF_UNIX, SOCK_DGRAM, 0);
	d = socket(AF_UNIX, SOCK_DGRAM, 0);
	check_ok(bind(s, (struct sockaddr *)&a, la), "bind server");
	check(sendto(c, "anon", 4, 0, (struct sockaddr *)&a, la) == 4, "sendto from unbound");
	lf = sizeof(from);
	memset(&from, 0x55, sizeof(from));
	check(recvfrom(s, buf, 16, 0, (struct sockaddr *)&from, &lf) == 4, "recvfrom");
	check(lf == 0, "unbound sender: address length 0");
	check_ok(bind(c, (struct sockaddr *)&b, lb), "bind client");
	sendto(c, "named", 5, 0, (struct sockaddr *)&a, la);
	lf = sizeof(from);
	check(recvfrom(s, buf, 16, 0, (struct sockaddr *)&from, &lf) == 5, "recvfrom named");
	check(lf == lb && !strcmp(from.sun_path, b.sun_path), "sender's name and length");
	check_errno(send(d, "x", 1, 0), ENOTCONN, "send unconnected: ENOTCONN");
	check_ok(connect(s, (struct sockaddr *)&b, lb), "connect server to client");
	check_errno(sendto(d, "x", 1, 0, (struct sockaddr *)&a, la), EPERM,
		    "to a socket connected elsewhere: EPERM");
	check(sendto(c, "ok", 2, 0, (struct sockaddr *)&a, la) == 2, "from its peer: fine");
	check(recv(s, buf, 16, 0) == 2, "received");
	check_ok(connect(c, (struct sockaddr *)&a, la), "connect client");
	check(send(c, "conn", 4, 0) == 4 && recv(s, buf, 16, 0) == 4, "connected send");
	close(s);
	check_errno(send(c, "x", 1, 0), ECONNREFUSED, "peer closed: ECONNREFUSED");
	check_errno(send(c, "x", 1, 0), ENOTCONN, "then ENOTCONN");
	check_errno(sendto(c, "x", 1, 0, (struct sockaddr *)&a, la), ECONNREFUSED,
		    "name without a socket: ECONNREFUSED");
	unlink(a.sun_path);
	check_errno(sendto(c, "x", 1, 0, (struct sockaddr *)&a, la), ENOENT, "no such name: ENOENT");
	struct sockaddr_un unspec = { .sun_family = AF_UNSPEC };
	check_ok(connect(d, (struct sockaddr *)&unspec, sizeof(sa_family_t)), "AF_UNSPEC connect");
	close(c);
	close(d);
	unlink(b.sun_path);
}

static void dgram_queue_limit(void)
{
	struct sockaddr_un a;
	socklen_t la = abstract_addr(&a, "qlen");
	int s = socket(AF_UNIX, SOCK_DGRAM, 0), c = socket(AF_UNIX, SOCK_DGRAM, 0);
	int sent = 0;
	struct pollfd pfd;

	if (!check_ok(bind(s, (struct sockaddr *)&a, la), "bind"))
		goto out;
	connect(c, (struct sockaddr *)&a, la);
	for (int i = 0; i < 100; i++) {
		if (send(c, "m", 1, MSG_DONTWAIT) < 0) {
			check_errno(-1, EAGAIN, "full queue: EAGAIN");
			break;
		}
		sent++;
	}
	check(sent == 11, "max_dgram_qlen + 1 messages fit");
	pfd = (struct pollfd){ c, POLLOUT, 0 };
	check(poll(&pfd, 1, 0) == 0, "sender not writable while the peer is full");
	int ep = epoll_create1(0);
	struct epoll_event ev = { .events = EPOLLOUT | EPOLLET }, out;
	epoll_ctl(ep, EPOLL_CTL_ADD, c, &ev);
	check(epoll_wait(ep, &out, 1, 0) == 0, "epoll: not writable");
	char buf[4];
	recv(s, buf, 4, 0);
	check(poll(&pfd, 1, 0) == 1, "writable after a receive");
	check(epoll_wait(ep, &out, 1, 0) == 1 && (out.events & EPOLLOUT),
	      "edge-triggered epoll sees the room");
	close(ep);
	check(send(c, "m", 1, MSG_DONTWAIT) == 1, "room again");
out:
	close(s);
	close(c);
}

// ---- names ----

// SO_PASSCRED autobinds a datagram sender and a stream connector, as
// Linux; SO_ERROR reports a reset once; a seqpacket EPIPE sends no
// SIGPIPE (Linux's unix_dgram_sendmsg).
static void passcred_autobind_so_error(void)
{
	struct sockaddr_un a, from;
	socklen_t la = abstract_addr(&a, "pc"), lf = sizeof(from);
	int s = socket(AF_UNIX, SOCK_DGRAM, 0), c = socket(AF_UNIX, SOCK_DGRAM, 0), on = 1;
	int sv[2], e;
	char buf[8];
	pid_t pid;

	bind(s, (struct sockaddr *)&a, la);
	setsockopt(c, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on));
	check(sendto(c, "p", 1, 0, (struct sockaddr *)&a, la) == 1, "sendto");
	check(recvfrom(s, buf, 8, 0, (struct sockaddr *)&from, &lf) == 1, "recvfrom");
	check(lf == 8 && from.sun_path[0] == 0, "the sender was autobound");
	close(c);
	close(s);
	if (pair(SOCK_STREAM, sv))
		return;
	write(sv[0], "u", 1);
	close(sv[1]);
	e = getint_err(sv[0]);
	check(e == ECONNRESET, "SO_ERROR: ECONNRESET");
	check(getint_err(sv[0]) == 0, "read once");
	close(sv[0]);
	if (pair(SOCK_SEQPACKET, sv))
		return;
	close(sv[1]);
	pid = fork_child();
	if (pid == 0)
		_exit(send(sv[0], "x", 1, 0) < 0 && errno == EPIPE ? 0 : 1);
	check_child_ok(pid, "seqpacket EPIPE without SIGPIPE");
	close(sv[0]);
}

static void bind_and_names(void)
{
	struct sockaddr_un a, got;
	socklen_t la, lg;
	struct stat st;
	int s, t;
	mode_t old;

	la = path_addr(&a, scratch("named"));
	unlink(a.sun_path);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	lg = sizeof(got);
	check_ok(getsockname(s, (struct sockaddr *)&got, &lg), "getsockname unbound");
	check(lg == sizeof(sa_family_t) && got.sun_family == AF_UNIX, "unbound: length 2");
	old = umask(022);
	check_ok(bind(s, (struct sockaddr *)&a, la), "bind");
	umask(old);
	check(stat(a.sun_path, &st) == 0 && S_ISSOCK(st.st_mode) && (st.st_mode & 0777) == 0755,
	      "a socket node, 0777 & ~umask");
	check_errno(open(a.sun_path, O_RDWR), ENXIO, "open of the node: ENXIO");
	lg = sizeof(got);
	getsockname(s, (struct sockaddr *)&got, &lg);
	check(lg == la && !strcmp(got.sun_path, a.sun_path), "getsockname: path and its NUL");
	check_errno(bind(s, (struct sockaddr *)&a, la), EADDRINUSE, "rebind to an existing name");
	struct sockaddr_un b;
	socklen_t lb = path_addr(&b, scratch("named2"));
	unlink(b.sun_path);
	check_errno(bind(s, (struct sockaddr *)&b, lb), EINVAL, "second bind: EINVAL");
	check(access(b.sun_path, F_OK) < 0, "the second name was taken back");
	t = socket(AF_UNIX, SOCK_STREAM, 0);
	check_errno(bind(t, (struct sockaddr *)&a, la), EADDRINUSE, "EADDRINUSE");
	check_errno(bind(t, (struct sockaddr *)&a, 1), EINVAL, "length 1");
	check_errno(bind(t, (struct sockaddr *)&a, sizeof(a) + 1), EINVAL, "length 111");
	check_errno(bind(t, (struct sockaddr *)&a, 129), EINVAL, "length 129");
	check_errno(bind(t, (struct sockaddr *)&a, -1), EINVAL, "length -1");
	check_errno(bind(t, (struct sockaddr *)8, la), EFAULT, "EFAULT");
	struct sockaddr_un inet = a;
	inet.sun_family = AF_INET;
	check_errno(bind(t, (struct sockaddr *)&inet, la), EINVAL, "family AF_INET");
	check_errno(connect(t, (struct sockaddr *)&a, la), ECONNREFUSED, "bound, not listening");
	check_ok(unlink(a.sun_path), "unlink removes the name");
	check_errno(connect(t, (struct sockaddr *)&a, la), ENOENT, "gone: ENOENT");
	close(t);
	// Autobind: bind with only the family.
	t = socket(AF_UNIX, SOCK_DGRAM, 0);
	check_ok(bind(t, (struct sockaddr *)&a, sizeof(sa_family_t)), "autobind");
	lg = sizeof(got);
	getsockname(t, (struct sockaddr *)&got, &lg);
	check(lg == 8 && got.sun_path[0] == 0, "autobind: \\0 and 5 hex digits");
	for (int i = 1; i < 6; i++)
		if (!strchr("0123456789abcdef", got.sun_path[i]))
			fail("autobind name byte %d", i);
	close(t);
	close(s);
}

static void abstract_names(void)
{
	struct sockaddr_un a, got;
	socklen_t la = abstract_addr(&a, "abs"), lg;
	int s, c, t, d, x;

	s = socket(AF_UNIX, SOCK_STREAM, 0);
	check_ok(bind(s, (struct sockaddr *)&a, la), "bind abstract");
	lg = sizeof(got);
	getsockname(s, (struct sockaddr *)&got, &lg);
	check(lg == la && !memcmp(&got, &a, la), "getsockname: the given length");
	t = socket(AF_UNIX, SOCK_STREAM, 0);
	check_errno(bind(t, (struct sockaddr *)&a, la), EADDRINUSE, "taken");
	d = socket(AF_UNIX, SOCK_DGRAM, 0);
	check_ok(bind(d, (struct sockaddr *)&a, la), "another type may have the name");
	check_errno(connect(t, (struct sockaddr *)&a, la), ECONNREFUSED, "not listening");
	listen(s, 5);
	c = socket(AF_UNIX, SOCK_STREAM, 0);
	check_ok(connect(c, (struct sockaddr *)&a, la), "connect abstract");
	x = accept(s, NULL, NULL);
	check(x >= 0 && write(c, "y", 1) == 1 && read(x, &got, 1) == 1, "data");
	close(x);
	close(c);
	close(s);
	c = socket(AF_UNIX, SOCK_STREAM, 0);
	check_errno(connect(c, (struct sockaddr *)&a, la), ECONNREFUSED, "closed: name free");
	close(c);
	close(t);
	close(d);
}

static void listen_connect_accept(void)
{
	struct sockaddr_un a, got;
	socklen_t la, lg;
	int l, c, x, t, v = 0;
	socklen_t vl = sizeof(v);

	l = listener("listen", SOCK_STREAM, 5, &a, &la);
	if (l < 0)
		return;
	getsockopt(l, SOL_SOCKET, SO_ACCEPTCONN, &v, &vl);
	check(v == 1, "SO_ACCEPTCONN");
	c = socket(AF_UNIX, SOCK_STREAM, 0);
	check_ok(connect(c, (struct sockaddr *)&a, la), "connect");
	check_errno(connect(c, (struct sockaddr *)&a, la), EISCONN, "again: EISCONN");
	lg = sizeof(got);
	memset(&got, 0x55, sizeof(got));
	x = accept4(l, (struct sockaddr *)&got, &lg, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (!check_ok(x, "accept4"))
		goto out;
	check(lg == sizeof(sa_family_t), "the client is unbound: length 2");
	check(fcntl(x, F_GETFD) == FD_CLOEXEC && (fcntl(x, F_GETFL) & O_NONBLOCK), "accept4 flags");
	lg = sizeof(got);
	getsockname(x, (struct sockaddr *)&got, &lg);
	check(lg == la && !strcmp(got.sun_path, a.sun_path), "accepted: the listener's name");
	lg = sizeof(got);
	getpeername(c, (struct sockaddr *)&got, &lg);
	check(lg == la && !strcmp(got.sun_path, a.sun_path), "client's peer: the listener's name");
	lg = 4;
	getpeername(c, (struct sockaddr *)&got, &lg);
	check(lg == la, "a short buffer still gets the whole length");
	check(write(c, "ping", 4) == 4 && read(x, &got, 4) == 4, "client to server");
	check(write(x, "pong", 4) == 4 && read(c, &got, 4) == 4, "server to client");
	fcntl(l, F_SETFL, O_NONBLOCK);
	check_errno(accept4(l, NULL, NULL, SOCK_NONBLOCK), EAGAIN, "nothing pending: EAGAIN");
	fcntl(l, F_SETFL, 0);
	check_errno(syscall(SYS_accept4, l, NULL, NULL, 0x8), EINVAL, "accept4 bad flags");
	check_errno(accept(c, NULL, NULL), EINVAL, "accept on a connected socket");
	t = socket(AF_UNIX, SOCK_DGRAM, 0);
	check_errno(listen(t, 1), EOPNOTSUPP, "listen on dgram");
	check_errno(accept(t, NULL, NULL), EOPNOTSUPP, "accept on dgram");
	check_errno(connect(t, (struct sockaddr *)&a, la), EPROTOTYPE, "dgram to stream: EPROTOTYPE");
	close(t);
	t = socket(AF_UNIX, SOCK_STREAM, 0);
	check_errno(listen(t, 1), EINVAL, "listen unbound");
	check_errno(getpeername(t, (struct sockaddr *)&got, &lg), ENOTCONN, "getpeername ENOTCONN");
	check_errno(send(t, "x", 1, 0), ENOTCONN, "send unconnected stream");
	check_errno(recv(t, &got, 1, 0), EINVAL, "recv unconnected stream: EINVAL");
	check_errno(sendto(c, "x", 1, 0, (struct sockaddr *)&a, la), EISCONN, "sendto on a stream");
	check_errno(sendto(t, "x", 1, 0, (struct sockaddr *)&a, la), EOPNOTSUPP,
		    "sendto on an unconnected stream");
	close(t);
	close(x);
out:
	close(c);
	close(l);
	c = socket(AF_UNIX, SOCK_STREAM, 0);
	check_errno(connect(c, (struct sockaddr *)&a, la), ECONNREFUSED, "listener closed");
	close(c);
	unlink(a.sun_path);
}

static void connect_needs_write_permission(void)
{
	struct sockaddr_un a;
	socklen_t la;
	int l = listener("perm", SOCK_STREAM, 5, &a, &la);
	pid_t pid;

	if (l < 0)
		return;
	chmod(a.sun_path, 0755);
	pid = fork_child();
	if (pid == 0) {
		int c = socket(AF_UNIX, SOCK_STREAM, 0);
		if (setgid(65534) || setuid(65534))
			_exit(1);
		if (connect(c, (struct sockaddr *)&a, la) == 0 || errno != EACCES)
			_exit(2);
		_exit(0);
	}
	if (getuid() == 0)
		check_child_ok(pid, "connect without write permission: EACCES");
	else {
		reap(pid);
		skip("needs root");
	}
	close(l);
	unlink(a.sun_path);
}

static void listen_backlog(void)
{
	struct sockaddr_un a;
	socklen_t la;
	int l = listener("backlog", SOCK_STREAM, 1, &a, &la), c[3], x;
	pid_t pid;

	if (l < 0)
		return;
	for (int i = 0; i < 3; i++)
		c[i] = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
	check_ok(connect(c[0], (struct sockaddr *)&a, la), "first");
	check_ok(connect(c[1], (struct sockaddr *)&a, la), "second (backlog + 1)");
	check_errno(connect(c[2], (struct sockaddr *)&a, la), EAGAIN, "full: EAGAIN");
	struct pollfd pfd = { l, POLLIN, 0 };
	check(poll(&pfd, 1, 0) == 1 && pfd.revents == POLLIN, "listener POLLIN");
	pid = fork_child();
	if (pid == 0) {
		sleep_ms(50);
		int y = accept(l, NULL, NULL);
		_exit(y < 0);
	}
	int b = socket(AF_UNIX, SOCK_STREAM, 0);
	check_ok(connect(b, (struct sockaddr *)&a, la), "a blocking connect waits for room");
	check_child_ok(pid, "acceptor");
	x = accept(l, NULL, NULL);
	check_ok(x, "accept");
	close(x);
	close(b);
	for (int i = 0; i < 3; i++)
		close(c[i]);
	close(l);
	unlink(a.sun_path);
}

static void pending_connection_reset(void)
{
	struct sockaddr_un a;
	socklen_t la;
	int l = listener("pending", SOCK_STREAM, 5, &a, &la), c;
	char ch;

	if (l < 0)
		return;
	c = socket(AF_UNIX, SOCK_STREAM, 0);
	connect(c, (struct sockaddr *)&a, la);
	close(l);
	check_errno(read(c, &ch, 1), ECONNRESET, "listener closed with us pending: ECONNRESET");
	close(c);
	unlink(a.sun_path);
}

// ---- descriptors and credentials ----

static int send_fds(int sock, const int *fds, int n, const void *data, size_t len)
{
	char ctl[CMSG_SPACE(sizeof(int) * 8)];
	struct iovec iov = { (void *)data, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
			     .msg_controllen = CMSG_SPACE(sizeof(int) * n) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);

	memset(ctl, 0, sizeof(ctl));
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int) * n);
	memcpy(CMSG_DATA(cm), fds, sizeof(int) * n);
	return (int)sendmsg(sock, &mh, 0);
}

// Receives one message; the descriptors in fds (at most 'room'), their
// count returned, -1 on error.  *flags gets msg_flags.
static int recv_fds(int sock, int *fds, int room, int rflags, int *flags)
{
	char ctl[CMSG_SPACE(sizeof(int) * 8)], buf[16];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = room ? ctl : NULL,
			     .msg_controllen = room ? CMSG_LEN(sizeof(int) * room) : 0 };
	int n = 0;

	if (recvmsg(sock, &mh, rflags) < 0)
		return -1;
	*flags = mh.msg_flags;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
			n = (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
			memcpy(fds, CMSG_DATA(cm), sizeof(int) * n);
		}
	return n;
}

static void scm_rights_basic(void)
{
	int sv[2], p[2], got[4], flags, n;
	char c;

	if (pair(SOCK_STREAM, sv) || pipe(p))
		return;
	check(send_fds(sv[0], &p[0], 1, "f", 1) == 1, "sendmsg SCM_RIGHTS");
	n = recv_fds(sv[1], got, 1, MSG_CMSG_CLOEXEC, &flags);
	if (check(n == 1, "one descriptor")) {
		check(got[0] != p[0] && fcntl(got[0], F_GETFD) == FD_CLOEXEC, "new fd, MSG_CMSG_CLOEXEC");
		// Linux's ___sys_recvmsg starts msg_flags with it (Go's
		// TestSCMCredentials looks).
		check(flags == MSG_CMSG_CLOEXEC, "msg_flags echoes MSG_CMSG_CLOEXEC");
		write(p[1], "z", 1);
		check(read(got[0], &c, 1) == 1 && c == 'z', "the same pipe");
		close(got[0]);
	}
	int two[2] = { p[0], p[1] };
	send_fds(sv[0], two, 2, "g", 1);
	n = recv_fds(sv[1], got, 1, 0, &flags);
	check(n == 1 && (flags & MSG_CTRUNC), "room for one of two: MSG_CTRUNC");
	if (n == 1)
		close(got[0]);
	send_fds(sv[0], two, 2, "h", 1);
	n = recv_fds(sv[1], got, 0, 0, &flags);
	check(n == 0 && (flags & MSG_CTRUNC), "no control buffer: MSG_CTRUNC");
	send_fds(sv[0], &p[0], 1, "i", 1);
	n = recv_fds(sv[1], got, 2, MSG_PEEK, &flags);
	check(n == 1, "MSG_PEEK passes the descriptor too");
	if (n == 1)
		close(got[0]);
	n = recv_fds(sv[1], got, 2, 0, &flags);
	check(n == 1, "and the read again");
	if (n == 1)
		close(got[0]);
	send_fds(sv[0], two, 2, "s", 1);
	char info[256], path[64];
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", sv[1]);
	check(read_file(path, info, sizeof(info)) > 0 && strstr(info, "scm_fds: 2\n"),
	      "fdinfo: scm_fds of the queue");
	n = recv_fds(sv[1], got, 2, 0, &flags);
	for (int i = 0; i < n; i++)
		close(got[i]);
	check(read_file(path, info, sizeof(info)) > 0 && strstr(info, "scm_fds: 0\n"),
	      "fdinfo: none after the read");
	int bad = 9999;
	check_errno(send_fds(sv[0], &bad, 1, "j", 1), EBADF, "bad descriptor: EBADF");
	// A cmsg_len past the buffer.
	char ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { "k", 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
			     .msg_controllen = sizeof(ctl) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = sizeof(ctl) + 8;
	check_errno(sendmsg(sv[0], &mh, 0), EINVAL, "cmsg_len too long: EINVAL");
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	cm->cmsg_type = 77;
	check_errno(sendmsg(sv[0], &mh, 0), EINVAL, "unknown SOL_SOCKET type: EINVAL");
	close2(sv);
	close(p[0]);
	close(p[1]);
}

static void scm_rights_across_fork(void)
{
	int sv[2], got, flags;
	char buf[32];
	pid_t pid;

	if (pair(SOCK_DGRAM, sv))
		return;
	pid = fork_child();
	if (pid == 0) {
		int p[2];
		close(sv[1]);
		if (pipe(p))
			_exit(1);
		write(p[1], "from child", 10);
		close(p[1]);
		if (send_fds(sv[0], &p[0], 1, "x", 1) != 1)
			_exit(2);
		close(p[0]);
		_exit(0);
	}
	check_child_ok(pid, "sender");
	if (recv_fds(sv[1], &got, 1, 0, &flags) == 1) {
		check(read(got, buf, sizeof(buf)) == 10 && !memcmp(buf, "from child", 10),
		      "reads what the child wrote");
		close(got);
	} else {
		fail("no descriptor");
	}
	close2(sv);
}

// The receiver closes without reading: the descriptor in flight goes
// (the pipe's write end here, so its reader sees end of file).
static void scm_rights_receiver_closes(void)
{
	int sv[2], p[2];
	char c;

	if (pair(SOCK_STREAM, sv) || pipe(p))
		return;
	send_fds(sv[0], &p[1], 1, "w", 1);
	close(p[1]);
	close(sv[1]);
	check(read(p[0], &c, 1) == 0, "the write end in flight was closed");
	close(sv[0]);
	close(p[0]);
}

// Cycles only the collector can free: each end in the other's queue, and
// an end in its own queue.  Switchyard's end-of-boot leak check counts
// what would be left.
static void scm_rights_cycles(void)
{
	for (int round = 0; round < 20; round++) {
		int sv[2], tv[2], p[2];
		char c;

		if (pair(SOCK_STREAM, sv) || pair(SOCK_DGRAM, tv) || pipe(p))
			return;
		send_fds(sv[0], &sv[0], 1, "a", 1);	// sv[0] into sv[1]'s queue
		send_fds(sv[1], &sv[1], 1, "b", 1);	// sv[1] into sv[0]'s queue
		send_fds(tv[0], &tv[1], 1, "c", 1);	// tv[1] into its own queue
		send_fds(tv[0], &p[1], 1, "d", 1);	// and a pipe end with it
		close(p[1]);
		close2(sv);
		close2(tv);
		// The collector runs at a socket's close; the pipe's write end
		// goes with tv[1]'s queue.
		int x = socket(AF_UNIX, SOCK_STREAM, 0);
		close(x);
		struct pollfd pfd = { p[0], POLLIN, 0 };
		if (round == 0)
			check(poll(&pfd, 1, 1000) == 1 && read(p[0], &c, 1) == 0,
			      "cycle collected: the pipe end in flight closed");
		close(p[0]);
	}
}

// An unprivileged user may have at most RLIMIT_NOFILE descriptors in
// flight (Linux's too_many_unix_fds): one more is ETOOMANYREFS.
static void scm_rights_per_user_limit(void)
{
	pid_t pid;

	if (getuid() != 0)
		return skip("needs root to become another user");
	pid = fork_child();
	if (pid == 0) {
		struct rlimit rl = { 16, 16 };
		int sv[2], n = 0;
		if (setgid(65534) || setuid(65534) || setrlimit(RLIMIT_NOFILE, &rl))
			_exit(1);
		if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv))
			_exit(2);
		int rcv = 1 << 20;
		setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
		while (n < 40 && send_fds(sv[0], &sv[0], 1, "x", 1) == 1)
			n++;
		if (n != 17)
			_exit(3);		// count 0..16 may grow, 17 > 16 may not
		if (errno != ETOOMANYREFS)
			_exit(4);
		_exit(0);
	}
	check_child_ok(pid, "limit of descriptors in flight");
}

static void scm_credentials(void)
{
	int sv[2], on = 1;
	char ctl[CMSG_SPACE(sizeof(struct ucred))], buf[8];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr mh;
	struct ucred uc, *rc;
	socklen_t len = sizeof(uc);

	if (pair(SOCK_DGRAM, sv))
		return;
	check_ok(getsockopt(sv[0], SOL_SOCKET, SO_PEERCRED, &uc, &len), "SO_PEERCRED");
	check(len == sizeof(uc) && uc.pid == getpid() && uc.uid == geteuid() && uc.gid == getegid(),
	      "socketpair: the creator's credentials");
	setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &on, sizeof(on));
	send(sv[0], "c", 1, 0);
	mh = (struct msghdr){ .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
			      .msg_controllen = sizeof(ctl) };
	check(recvmsg(sv[1], &mh, 0) == 1, "recvmsg");
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
	if (check(cm && cm->cmsg_type == SCM_CREDENTIALS && cm->cmsg_len == CMSG_LEN(sizeof(uc)),
		  "an SCM_CREDENTIALS message")) {
		rc = (struct ucred *)CMSG_DATA(cm);
		check(rc->pid == getpid() && rc->uid == geteuid() && rc->gid == getegid(),
		      "the sender's credentials");
	}
	// Explicit credentials: our own are fine.
	memset(ctl, 0, sizeof(ctl));
	mh = (struct msghdr){ .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
			      .msg_controllen = sizeof(ctl) };
	iov.iov_len = 1;
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_CREDENTIALS;
	cm->cmsg_len = CMSG_LEN(sizeof(uc));
	uc = (struct ucred){ getpid(), geteuid(), getegid() };
	memcpy(CMSG_DATA(cm), &uc, sizeof(uc));
	check(sendmsg(sv[0], &mh, 0) == 1, "explicit own credentials");
	recv(sv[1], buf, sizeof(buf), 0);
	cm->cmsg_len = CMSG_LEN(sizeof(uc)) - 1;
	check_errno(sendmsg(sv[0], &mh, 0), EINVAL, "wrong cmsg_len: EINVAL");
	cm->cmsg_len = CMSG_LEN(sizeof(uc));
	pid_t pid = fork_child();
	if (pid == 0) {
		struct ucred other = { 1, 0, 0 };
		if (setgid(65534) || setuid(65534))
			_exit(1);
		memcpy(CMSG_DATA(cm), &other, sizeof(other));
		if (sendmsg(sv[0], &mh, 0) >= 0 || errno != EPERM)
			_exit(2);
		_exit(0);
	}
	if (getuid() == 0)
		check_child_ok(pid, "someone else's credentials: EPERM");
	else
		reap(pid);
	close2(sv);
}

static void peercred_across_accept(void)
{
	struct sockaddr_un a;
	socklen_t la, len;
	int l = listener("peercred", SOCK_STREAM, 5, &a, &la), x;
	struct ucred uc;
	pid_t pid;

	if (l < 0)
		return;
	pid = fork_child();
	if (pid == 0) {
		int c = socket(AF_UNIX, SOCK_STREAM, 0);
		struct ucred mine;
		socklen_t ml = sizeof(mine);
		char ch;
		if (connect(c, (struct sockaddr *)&a, la) < 0)
			_exit(1);
		getsockopt(c, SOL_SOCKET, SO_PEERCRED, &mine, &ml);
		if (mine.pid != getppid())
			_exit(2);		// the listener's process
		read(c, &ch, 1);
		_exit(0);
	}
	x = accept(l, NULL, NULL);
	len = sizeof(uc);
	check(x >= 0 && getsockopt(x, SOL_SOCKET, SO_PEERCRED, &uc, &len) == 0 && uc.pid == pid,
	      "accepted: the connecting process");
	write(x, "k", 1);
	check_child_ok(pid, "client");
	close(x);
	close(l);
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	len = sizeof(uc);
	getsockopt(s, SOL_SOCKET, SO_PEERCRED, &uc, &len);
	check(uc.pid == 0 && uc.uid == (uid_t)-1 && uc.gid == (gid_t)-1, "unconnected: 0, -1, -1");
	close(s);
	unlink(a.sun_path);
}

// ---- options ----

// A number from /proc/sys, or 'dflt' where there is none (Switchyard
// has no /proc/sys/net: its values are Linux's defaults).
static int sysctl_or(const char *path, int dflt)
{
	char buf[32];

	if (read_file(path, buf, sizeof(buf)) <= 0)
		return dflt;
	return atoi(buf);
}

static void socket_options(void)
{
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0), v;
	struct timeval tv = { 0, 100000 }, got;
	socklen_t l;
	char c;
	int sv[2];

	check(getint(fd, SO_TYPE) == SOCK_SEQPACKET, "SO_TYPE");
	check(getint(fd, SO_DOMAIN) == AF_UNIX, "SO_DOMAIN");
	check(getint(fd, SO_PROTOCOL) == 0, "SO_PROTOCOL");
	check(getint(fd, SO_ACCEPTCONN) == 0, "SO_ACCEPTCONN");
	check(getint(fd, SO_ERROR) == 0, "SO_ERROR");
	check(getint(fd, SO_SNDBUF) == 212992, "SO_SNDBUF default");
	v = 10000;
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
	check(getint(fd, SO_SNDBUF) == 20000, "SO_SNDBUF doubled");
	v = 0;
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
	check(getint(fd, SO_SNDBUF) == 4608, "SO_SNDBUF minimum");
	v = -1;
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
	check(getint(fd, SO_SNDBUF) == 2 * sysctl_or("/proc/sys/net/core/wmem_max", 212992),
	      "SO_SNDBUF clamped to wmem_max * 2");
	v = 0;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
	check(getint(fd, SO_RCVBUF) == 2304, "SO_RCVBUF minimum");
	v = 1;
	check_ok(setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &v, sizeof(v)), "SO_PASSCRED");
	check(getint(fd, SO_PASSCRED) == 1, "SO_PASSCRED read back");
	check_errno(setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &v, 2), EINVAL, "optlen 2");
	check_errno(setsockopt(fd, SOL_SOCKET, SO_PASSCRED, NULL, 4), EFAULT, "NULL value");
	check_errno(setsockopt(fd, SOL_SOCKET, 1000, &v, sizeof(v)), ENOPROTOOPT, "unknown option");
	struct linger lg = { 1, 7 }, lg2;
	check_ok(setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)), "SO_LINGER");
	l = sizeof(lg2);
	check(getsockopt(fd, SOL_SOCKET, SO_LINGER, &lg2, &l) == 0 && l == sizeof(lg2) &&
	      lg2.l_onoff == 1 && lg2.l_linger == 7, "SO_LINGER read back");
	check_errno(setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, 4), EINVAL, "SO_LINGER optlen 4");
	check_errno(setsockopt(fd, SOL_SOCKET, SO_TYPE, &v, sizeof(v)), ENOPROTOOPT, "set SO_TYPE");
	check_errno(getsockopt(fd, SOL_SOCKET, 1000, &v, &(socklen_t){ 4 }), ENOPROTOOPT,
		    "get unknown");
	check_errno(getsockopt(fd, 6, 1, &v, &(socklen_t){ 4 }), EOPNOTSUPP, "level IPPROTO_TCP");
	check_errno(getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &(socklen_t){ -1 }), EINVAL,
		    "negative optlen");
	l = 2;
	v = 0;
	check(getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &l) == 0 && l == 2 && v == SOCK_SEQPACKET,
	      "a short optlen gets a part");
	close(fd);
	if (pair(SOCK_STREAM, sv))
		return;
	check_ok(setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), "SO_RCVTIMEO");
	l = sizeof(got);
	getsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &got, &l);
	check(l == sizeof(got) && got.tv_sec == 0 && got.tv_usec == 100000, "SO_RCVTIMEO read back");
	long long t0 = now_ns(CLOCK_MONOTONIC);
	check_errno(read(sv[0], &c, 1), EAGAIN, "timed out: EAGAIN");
	check(now_ns(CLOCK_MONOTONIC) - t0 >= 90000000LL, "after the timeout");
	tv.tv_usec = 1000000;
	check_errno(setsockopt(sv[0], SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)), EDOM, "usec 1e6: EDOM");
	check_errno(setsockopt(sv[0], SOL_SOCKET, SO_SNDTIMEO, &tv, 8), EINVAL, "short timeval");
	close2(sv);
}

// ---- readiness ----

static void poll_and_epoll(void)
{
	struct pollfd pfd;
	struct epoll_event ev = { 0 }, out;
	int sv[2], ep, fd;

	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	pfd = (struct pollfd){ fd, POLLIN | POLLOUT, 0 };
	check(poll(&pfd, 1, 0) == 1 && pfd.revents == (POLLOUT | POLLHUP), "unconnected: OUT|HUP");
	close(fd);
	if (pair(SOCK_STREAM, sv))
		return;
	pfd = (struct pollfd){ sv[1], POLLIN | POLLOUT, 0 };
	check(poll(&pfd, 1, 0) == 1 && pfd.revents == POLLOUT, "connected idle: POLLOUT");
	ep = epoll_create1(0);
	ev.events = EPOLLIN | EPOLLET;
	epoll_ctl(ep, EPOLL_CTL_ADD, sv[1], &ev);
	check(epoll_wait(ep, &out, 1, 0) == 0, "epoll: nothing yet");
	pid_t pid = fork_child();
	if (pid == 0) {
		sleep_ms(30);
		write(sv[0], "e", 1);
		_exit(0);
	}
	check(epoll_wait(ep, &out, 1, 5000) == 1 && (out.events & EPOLLIN), "epoll wakes on data");
	check_child_ok(pid, "writer");
	write(sv[0], "f", 1);
	check(epoll_wait(ep, &out, 1, 0) == 1, "edge-triggered: a second write reports again");
	close(sv[0]);
	pfd = (struct pollfd){ sv[1], POLLIN | POLLOUT | POLLRDHUP, 0 };
	check(poll(&pfd, 1, 0) == 1 &&
	      pfd.revents == (POLLIN | POLLOUT | POLLHUP | POLLRDHUP), "peer closed: IN|OUT|HUP|RDHUP");
	fd_set rs;
	FD_ZERO(&rs);
	FD_SET(sv[1], &rs);
	struct timeval tv = { 0, 0 };
	check(select(sv[1] + 1, &rs, NULL, NULL, &tv) == 1, "select readable");
	close(ep);
	close(sv[1]);
}

// ---- vectors and batches ----

static void ioctl_queue_sizes(void)
{
	int sv[2], n = -1, l;
	struct sockaddr_un a;
	socklen_t la;

	if (pair(SOCK_STREAM, sv))
		return;
	write(sv[0], "abc", 3);
	write(sv[0], "de", 2);
	check(ioctl(sv[1], FIONREAD, &n) == 0 && n == 5, "stream FIONREAD: all queued bytes");
	check(ioctl(sv[0], TIOCOUTQ, &n) == 0 && n > 0, "SIOCOUTQ: the sender's queued memory");
	check_errno(ioctl(sv[0], TCGETS, &n), ENOTTY, "not a terminal: ENOTTY");
	close2(sv);
	if (pair(SOCK_DGRAM, sv))
		return;
	write(sv[0], "abc", 3);
	write(sv[0], "de", 2);
	check(ioctl(sv[1], FIONREAD, &n) == 0 && n == 3, "datagram FIONREAD: the next message");
	close2(sv);
	l = listener("inq", SOCK_STREAM, 1, &a, &la);
	if (l >= 0) {
		check_errno(ioctl(l, FIONREAD, &n), EINVAL, "listener FIONREAD: EINVAL");
		close(l);
		unlink(a.sun_path);
	}
}

static void readv_writev_one_message(void)
{
	struct iovec w[3] = { { "ab", 2 }, { "", 0 }, { "cde", 3 } };
	char x[2], y[8];
	struct iovec r[2] = { { x, 2 }, { y, 8 } };
	int sv[2];

	if (pair(SOCK_DGRAM, sv))
		return;
	check(writev(sv[0], w, 3) == 5, "writev: one datagram");
	check(readv(sv[1], r, 2) == 5 && !memcmp(x, "ab", 2) && !memcmp(y, "cde", 3),
	      "readv: the whole datagram");
	check_errno(recv(sv[1], y, 1, MSG_DONTWAIT), EAGAIN, "nothing else");
	check(writev(sv[0], w, 0) == 0, "an empty writev");
	check(write(sv[0], "", 0) == 0, "a write of 0 bytes");
	check(recv(sv[1], y, 8, MSG_DONTWAIT) == 0, "sends one empty datagram");
	check_errno(recv(sv[1], y, 1, MSG_DONTWAIT), EAGAIN, "the empty writev sent none");
	close2(sv);
}

static void seqpacket_listener(void)
{
	struct sockaddr_un a;
	socklen_t la;
	int l = listener("seq", SOCK_SEQPACKET, 2, &a, &la), c, x;
	char buf[16];
	struct pollfd pfd;

	if (l < 0)
		return;
	c = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	check_errno(send(c, "x", 1, 0), ENOTCONN, "before connect: ENOTCONN");
	check_ok(connect(c, (struct sockaddr *)&a, la), "connect");
	pfd = (struct pollfd){ l, POLLIN | POLLOUT, 0 };
	check(poll(&pfd, 1, 0) == 1 && pfd.revents == POLLIN, "listener: POLLIN only");
	check(send(c, "abc", 3, 0) == 3 && send(c, "de", 2, 0) == 2, "sends before accept");
	x = accept(l, NULL, NULL);
	if (!check_ok(x, "accept"))
		goto out;
	check(recv(x, buf, 16, 0) == 3 && recv(x, buf, 16, 0) == 2, "boundaries kept");
	check_errno(recv(l, buf, 1, 0), ENOTCONN, "recv on the listener: ENOTCONN");
	close(c);
	check(recv(x, buf, 16, 0) == 0, "EOF");
	close(x);
out:
	close(l);
	unlink(a.sun_path);
}

// sendfile from a file into a socket; a socket is no input (EINVAL).
static void sendfile_through_sockets(void)
{
	int sv[2], fd = open(scratch("sf"), O_RDWR | O_CREAT | O_TRUNC, 0600);
	char buf[16];

	if (fd < 0 || pair(SOCK_STREAM, sv))
		return (void)fail("setup");
	write(fd, "sendfile", 8);
	check(sendfile(sv[0], fd, &(off_t){ 0 }, 8) == 8, "file to socket");
	check(read(sv[1], buf, 16) == 8 && !memcmp(buf, "sendfile", 8), "arrived");
	write(sv[0], "back", 4);
	check_errno(sendfile(fd, sv[1], NULL, 4), EINVAL, "socket to file: EINVAL");
	check_errno(sendfile(fd, sv[1], &(off_t){ 0 }, 4), ESPIPE, "with an offset: ESPIPE");
	close2(sv);
	close(fd);
	unlink(scratch("sf"));
}

static void mmsg_batches(void)
{
	struct mmsghdr m[4];
	struct iovec iov[4];
	char bufs[4][8];
	int sv[2];
	struct timespec ts = { 1, 0 };

	if (pair(SOCK_DGRAM, sv))
		return;
	memset(m, 0, sizeof(m));
	const char *texts[3] = { "a", "bb", "ccc" };
	for (int i = 0; i < 3; i++) {
		iov[i] = (struct iovec){ (void *)texts[i], strlen(texts[i]) };
		m[i].msg_hdr.msg_iov = &iov[i];
		m[i].msg_hdr.msg_iovlen = 1;
	}
	check(sendmmsg(sv[0], m, 3, 0) == 3, "sendmmsg 3");
	check(m[0].msg_len == 1 && m[1].msg_len == 2 && m[2].msg_len == 3, "msg_len of each");
	memset(m, 0, sizeof(m));
	for (int i = 0; i < 4; i++) {
		iov[i] = (struct iovec){ bufs[i], 8 };
		m[i].msg_hdr.msg_iov = &iov[i];
		m[i].msg_hdr.msg_iovlen = 1;
	}
	check(recvmmsg(sv[1], m, 4, MSG_WAITFORONE, &ts) == 3, "recvmmsg MSG_WAITFORONE: 3");
	check(m[0].msg_len == 1 && m[1].msg_len == 2 && m[2].msg_len == 3 && !memcmp(bufs[2], "ccc", 3),
	      "received lengths and data");
	check_errno(recvmmsg(sv[1], m, 4, MSG_DONTWAIT, NULL), EAGAIN, "empty: EAGAIN");
	struct timespec bad = { 0, 2000000000L };
	check_errno(recvmmsg(sv[1], m, 4, 0, &bad), EINVAL, "bad timeout: EINVAL");
	// An error after a first message is kept for the next call.
	send(sv[0], "x", 1, 0);
	send(sv[0], "y", 1, 0);
	iov[1] = (struct iovec){ (void *)8, 8 };
	check(recvmmsg(sv[1], m, 2, 0, NULL) == 1, "one message, then EFAULT");
	check(getint(sv[1], SO_ERROR) == EFAULT, "kept as SO_ERROR");
	send(sv[0], "z", 1, 0);
	send(sv[0], "w", 1, 0);
	check(recvmmsg(sv[1], m, 2, 0, NULL) == 1, "again one message");
	check_errno(recvmmsg(sv[1], m, 1, MSG_DONTWAIT, NULL), EFAULT, "the next call answers EFAULT");
	close2(sv);
}

static void msghdr_errors(void)
{
	struct iovec iov = { "x", 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	int sv[2];

	if (pair(SOCK_DGRAM, sv))
		return;
	check_errno(syscall(SYS_sendmsg, sv[0], (void *)8, 0), EFAULT, "msghdr EFAULT");
	check_errno(syscall(SYS_recvmsg, sv[0], (void *)8, 0), EFAULT, "recvmsg msghdr EFAULT");
	mh.msg_iovlen = 1025;
	check_errno(syscall(SYS_sendmsg, sv[0], &mh, 0), EMSGSIZE, "1025 segments: EMSGSIZE");
	mh.msg_iovlen = 1;
	mh.msg_name = &iov;
	mh.msg_namelen = (socklen_t)-1;
	check_errno(syscall(SYS_sendmsg, sv[0], &mh, 0), EINVAL, "negative namelen");
	mh.msg_name = NULL;
	check(syscall(SYS_sendmsg, sv[0], &mh, 0) == 1, "no name: its length is not looked at");
	check(recv(sv[1], &iov, 1, 0) == 1, "received");
	mh.msg_namelen = 0;
	check_errno(send(sv[0], (void *)8, 1, 0), EFAULT, "send EFAULT");
	check_errno(send(sv[0], "x", 1, MSG_OOB), EOPNOTSUPP, "MSG_OOB");
	check_errno(syscall(SYS_sendmsg, sv[0], &mh, 0x80000000), EINVAL, "MSG_CMSG_COMPAT");
	send(sv[0], "x", 1, 0);
	check_errno(recv(sv[1], (void *)8, 1, 0), EFAULT, "recv EFAULT");
	close2(sv);
}

// Several processes at once make pairs, pass descriptors around (cycles
// included), connect, accept and close, on a shared listener: nothing may
// hang, crash or be left behind (the boot's leak check).
static void concurrent_churn(void)
{
	struct sockaddr_un a;
	socklen_t la;
	int l = listener("churn", SOCK_STREAM, 64, &a, &la);
	pid_t pids[4];

	if (l < 0)
		return;
	fcntl(l, F_SETFL, O_NONBLOCK);
	for (int k = 0; k < 4; k++) {
		pids[k] = fork_child();
		if (pids[k] == 0) {
			signal(SIGPIPE, SIG_IGN);	// peers of other children come and go
			for (int i = 0; i < 150; i++) {
				int sv[2], c, x;
				char b[64];
				if (socketpair(AF_UNIX, (i & 1) ? SOCK_DGRAM : SOCK_STREAM, 0, sv))
					_exit(1);
				send_fds(sv[0], &sv[1], 1, "c", 1);
				send_fds(sv[1], &sv[0], 1, "d", 1);
				if (i % 3 == 0) {
					int got, fl;
					if (recv_fds(sv[1], &got, 1, 0, &fl) == 1)
						close(got);
				}
				close2(sv);
				c = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
				if (connect(c, (struct sockaddr *)&a, la) == 0)
					send(c, b, sizeof(b), MSG_NOSIGNAL);
				x = accept4(l, NULL, NULL, SOCK_NONBLOCK);
				if (x >= 0) {
					read(x, b, sizeof(b));
					if (k & 1)
						send_fds(x, &c, 1, "e", 1);
					close(x);
				}
				close(c);
			}
			_exit(0);
		}
	}
	for (int k = 0; k < 4; k++)
		check_child_ok(pids[k], "churner");
	close(l);
	unlink(a.sun_path);
}

static const struct test_case cases[] = {
	{ "socket_argument_errors", socket_argument_errors },
	{ "stream_pair_read_write", stream_pair_read_write },
	{ "stream_megabyte_across_fork", stream_megabyte_across_fork },
	{ "stream_eof_epipe_sigpipe", stream_eof_epipe_sigpipe },
	{ "stream_econnreset", stream_econnreset },
	{ "stream_shutdown", stream_shutdown },
	{ "stream_nonblocking", stream_nonblocking },
	{ "stream_peek_and_waitall", stream_peek_and_waitall },
	{ "peek_offset", peek_offset },
	{ "dgram_boundaries_and_trunc", dgram_boundaries_and_trunc },
	{ "seqpacket_pair", seqpacket_pair },
	{ "seqpacket_listener", seqpacket_listener },
	{ "dgram_named", dgram_named },
	{ "dgram_queue_limit", dgram_queue_limit },
	{ "passcred_autobind_so_error", passcred_autobind_so_error },
	{ "bind_and_names", bind_and_names },
	{ "abstract_names", abstract_names },
	{ "listen_connect_accept", listen_connect_accept },
	{ "connect_needs_write_permission", connect_needs_write_permission },
	{ "listen_backlog", listen_backlog },
	{ "pending_connection_reset", pending_connection_reset },
	{ "scm_rights_basic", scm_rights_basic },
	{ "scm_rights_across_fork", scm_rights_across_fork },
	{ "scm_rights_receiver_closes", scm_rights_receiver_closes },
	{ "scm_rights_cycles", scm_rights_cycles },
	{ "scm_rights_per_user_limit", scm_rights_per_user_limit },
	{ "scm_credentials", scm_credentials },
	{ "peercred_across_accept", peercred_across_accept },
	{ "socket_options", socket_options },
	{ "poll_and_epoll", poll_and_epoll },
	{ "ioctl_queue_sizes", ioctl_queue_sizes },
	{ "readv_writev_one_message", readv_writev_one_message },
	{ "sendfile_through_sockets", sendfile_through_sockets },
	{ "mmsg_batches", mmsg_batches },
	{ "msghdr_errors", msghdr_errors },
	{ "concurrent_churn", concurrent_churn },
};

int main(void)
{
	struct utsname u;

	on_switchyard = uname(&u) == 0 && strstr(u.version, "Switchyard") != NULL;
	snprintf(scratch_dir, sizeof(scratch_dir), "/tmp/unix_sockets-%d", (int)getpid());
	mkdir(scratch_dir, 0755);
	chmod(scratch_dir, 0755);
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	rmdir(scratch_dir);
	return ktap_finish();
}
