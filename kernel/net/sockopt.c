// setsockopt and getsockopt at SOL_SOCKET, Linux 6.1's sk_setsockopt
// and sk_getsockopt for the options an AF_UNIX socket has; the rest are
// ENOPROTOOPT (docs/syscalls.md), and other levels EOPNOTSUPP (AF_UNIX
// has no options of its own).

#include <net/unix.h>
#include <fs/file.h>
#include <kernel/cred.h>
#include <kernel/syscall.h>
#include <kernel/uaccess.h>
#include <lib/string.h>
#include <uapi/errno.h>

#include <uapi/socket.h>	// SO_*: their values differ between archs

#define CAP_NET_ADMIN	12
#define CAP_NET_RAW	13
#define INT_MAX_	0x7fffffff
#define HZ		250		// timeouts are kept in Linux's jiffies (Debian's HZ)
#define JIFFY_NS	(1000000000LL / HZ)

struct timeval_k {
	int64_t sec, usec;
};

// Linux's sock_set_timeout: EDOM for bad microseconds, a negative time
// means never wait, zero forever; others in whole jiffies, rounded up.
static long set_timeout(int64_t *timeo, uint64_t uval, int optlen)
{
	struct timeval_k tv;

	if (optlen < (int)sizeof(tv))
		return -EINVAL;
	if (copy_from_user(&tv, uval, sizeof(tv)) < 0)
		return -EFAULT;
	if (tv.usec < 0 || tv.usec >= 1000000)
		return -EDOM;
	if (tv.sec < 0) {
		*timeo = 0;
		return 0;
	}
	*timeo = -1;
	if ((tv.sec || tv.usec) && tv.sec < (INT64_MAX / 1000000000LL / 2)) {
		int64_t jiffies = tv.sec * HZ + (tv.usec + (1000000 / HZ) - 1) / (1000000 / HZ);
		*timeo = jiffies * JIFFY_NS;
	}
	return 0;
}

static struct timeval_k get_timeout(int64_t timeo)
{
	int64_t j = timeo / JIFFY_NS;

	if (timeo < 0)
		return (struct timeval_k){ 0, 0 };
	return (struct timeval_k){ j / HZ, (j % HZ) * 1000000 / HZ };
}

struct linger_k {
	int32_t onoff, linger;
};

// Linux's SO_LINGER: kept in jiffies (no effect on unix sockets).
static long set_linger(struct usock *s, uint64_t uval, int optlen)
{
	struct linger_k l;
	uint64_t flags, secs;

	if (optlen < (int)sizeof(l))
		return -EINVAL;
	if (copy_from_user(&l, uval, sizeof(l)) < 0)
		return -EFAULT;
	secs = (uint64_t)(int64_t)l.linger;	// as Linux's unsigned long
	flags = spin_lock_irqsave(&unix_lock);
	s->linger_on = l.onoff != 0;
	if (l.onoff)
		s->linger_jiffies = secs >= (uint64_t)INT64_MAX / HZ ? (uint64_t)INT64_MAX : secs * HZ;
	spin_unlock_irqrestore(&unix_lock, flags);
	return 0;
}

static long set_int_option(struct usock *s, int name, int val)
{
	const struct cred *c = current_cred();
	uint32_t u = (uint32_t)val;

	switch (name) {
	case SO_DEBUG:
		if (val && !cred_capable(c, CAP_NET_ADMIN))
			return -EACCES;
		s->debug = val != 0;
		return 0;
	case SO_BSDCOMPAT:
		return 0;
	case SO_REUSEADDR:
		s->reuseaddr = val != 0;
		return 0;
	case SO_DONTROUTE:
		s->dontroute = val != 0;
		return 0;
	case SO_BROADCAST:
		s->broadcast = val != 0;
		return 0;
	case SO_KEEPALIVE:
		s->keepalive = val != 0;
		return 0;
	case SO_OOBINLINE:
		s->oobinline = val != 0;
		return 0;
	case SO_PASSCRED:
		s->passcred = val != 0;
		return 0;
	case SO_PRIORITY:
		if ((val < 0 || val > 6) && !cred_capable(c, CAP_NET_RAW) &&
		    !cred_capable(c, CAP_NET_ADMIN))
			return -EPERM;
		s->priority = val;
		return 0;
	case SO_RCVLOWAT:
		s->lowat = val < 0 ? INT_MAX_ : (val ? val : 1);
		return 0;
	case SO_SNDBUF:
	case SO_SNDBUFFORCE:
		if (name == SO_SNDBUFFORCE) {
			if (!cred_capable(c, CAP_NET_ADMIN))
				return -EPERM;
			u = val < 0 ? 0 : (uint32_t)val;
		} else if (u > WMEM_DEFAULT) {
			u = WMEM_DEFAULT;
		}
		if (u > INT_MAX_ / 2)
			u = INT_MAX_ / 2;
		s->sndbuf = (int)(u * 2) > SOCK_MIN_SNDBUF ? (int)(u * 2) : SOCK_MIN_SNDBUF;
		usock_wake_locked(s, POLLOUT);
		return 0;
	case SO_RCVBUF:
	case SO_RCVBUFFORCE:
		if (name == SO_RCVBUFFORCE) {
			if (!cred_capable(c, CAP_NET_ADMIN))
				return -EPERM;
			u = val < 0 ? 0 : (uint32_t)val;
		} else if (u > RMEM_DEFAULT) {
			u = RMEM_DEFAULT;
		}
		if (u > INT_MAX_ / 2)
			u = INT_MAX_ / 2;
		s->rcvbuf = (int)(u * 2) > SOCK_MIN_RCVBUF ? (int)(u * 2) : SOCK_MIN_RCVBUF;
		return 0;
	}
	return -ENOPROTOOPT;
}

SYSCALL_DEFINE(SYS_setsockopt, setsockopt)
{
	int level = (int)args->a[1], name = (int)args->a[2], optlen = (int)args->a[4];
	uint64_t uval = args->a[3], flags;
	struct usock *s;
	struct file *f;
	int32_t val;
	long rc;

	if (optlen < 0)
		return -EINVAL;
	f = sock_fget((int)args->a[0], &s, &rc);
	if (!f)
		return rc;
	if (level != SOL_SOCKET) {
		rc = -EOPNOTSUPP;
	} else if (optlen < (int)sizeof(int32_t)) {
		rc = -EINVAL;
	} else if (copy_from_user(&val, uval, sizeof(val)) < 0) {
		rc = -EFAULT;
	} else if (name == SO_PEEK_OFF) {
		// Readers hold the iolock, as Linux's unix_set_peek_off.
		mutex_lock(&s->iolock);
		flags = spin_lock_irqsave(&unix_lock);
		s->peek_off = val;
		spin_unlock_irqrestore(&unix_lock, flags);
		mutex_unlock(&s->iolock);
		rc = 0;
	} else if (name == SO_LINGER) {
		rc = set_linger(s, uval, optlen);
	} else if (name == SO_RCVTIMEO_OLD || name == SO_RCVTIMEO_NEW) {
		rc = set_timeout(&s->rcvtimeo, uval, optlen);
	} else if (name == SO_SNDTIMEO_OLD || name == SO_SNDTIMEO_NEW) {
		rc = set_timeout(&s->sndtimeo, uval, optlen);
	} else {
		flags = spin_lock_irqsave(&unix_lock);
		rc = set_int_option(s, name, val);
		spin_unlock_irqrestore(&unix_lock, flags);
		poll_notify();
	}
	file_put(f);
	return rc;
}

// The value of an option (lock held): its length, or -ENOPROTOOPT.
static int get_option(struct usock *s, int name, void *out)
{
	int32_t *v = out;

	switch (name) {
	case SO_DEBUG:
		*v = s->debug;
		return 4;
	case SO_BSDCOMPAT:
		*v = 0;
		return 4;
	case SO_LINGER:
		v[0] = s->linger_on;
		v[1] = (int32_t)(s->linger_jiffies / HZ);
		return 8;
	case SO_TYPE:
		*v = s->type;
		return 4;
	case SO_ERROR:
		*v = s->err;
		s->err = 0;
		return 4;
	case SO_SNDBUF:
		*v = s->sndbuf;
		return 4;
	case SO_RCVBUF:
		*v = s->rcvbuf;
		return 4;
	case SO_REUSEADDR:
		*v = s->reuseaddr;
		return 4;
	case SO_DONTROUTE:
		*v = s->dontroute;
		return 4;
	case SO_BROADCAST:
		*v = s->broadcast;
		return 4;
	case SO_KEEPALIVE:
		*v = s->keepalive;
		return 4;
	case SO_OOBINLINE:
		*v = s->oobinline;
		return 4;
	case SO_PRIORITY:
		*v = s->priority;
		return 4;
	case SO_PASSCRED:
		*v = s->passcred;
		return 4;
	case SO_RCVLOWAT:
		*v = s->lowat;
		return 4;
	case SO_SNDLOWAT:
		*v = 1;
		return 4;
	case SO_ACCEPTCONN:
		*v = s->state == US_LISTEN;
		return 4;
	case SO_PEEK_OFF:
		*v = s->peek_off;
		return 4;
	case SO_PROTOCOL:
		*v = s->protocol;
		return 4;
	case SO_DOMAIN:
		*v = AF_UNIX;
		return 4;
	case SO_PEERCRED: {
		struct ucred_k c = { 0, (uint32_t)-1, (uint32_t)-1 };
		if (s->has_peercred)
			c = s->peercred;
		memcpy(out, &c, sizeof(c));
		return sizeof(c);
	}
	case SO_RCVTIMEO_OLD:
	case SO_RCVTIMEO_NEW:
	case SO_SNDTIMEO_OLD:
	case SO_SNDTIMEO_NEW: {
		bool rcv = name == SO_RCVTIMEO_OLD || name == SO_RCVTIMEO_NEW;
		struct timeval_k tv = get_timeout(rcv ? s->rcvtimeo : s->sndtimeo);
		memcpy(out, &tv, sizeof(tv));
		return sizeof(tv);
	}
	}
	return -ENOPROTOOPT;
}

SYSCALL_DEFINE(SYS_getsockopt, getsockopt)
{
	int level = (int)args->a[1], name = (int)args->a[2];
	uint64_t uval = args->a[3], ulen = args->a[4], flags;
	uint8_t val[16];
	struct usock *s;
	struct file *f;
	int32_t len;
	long rc;

	f = sock_fget((int)args->a[0], &s, &rc);
	if (!f)
		return rc;
	if (level != SOL_SOCKET) {
		rc = -EOPNOTSUPP;
		goto out;
	}
	if (get_user_u32((uint32_t *)&len, ulen) < 0) {
		rc = -EFAULT;
		goto out;
	}
	if (len < 0) {
		rc = -EINVAL;
		goto out;
	}
	memset(val, 0, sizeof(val));
	flags = spin_lock_irqsave(&unix_lock);
	rc = get_option(s, name, val);
	spin_unlock_irqrestore(&unix_lock, flags);
	if (rc < 0)
		goto out;
	if (len > rc)
		len = (int32_t)rc;
	if (copy_to_user(uval, val, (size_t)len) < 0 || put_user_u32(ulen, (uint32_t)len) < 0)
		rc = -EFAULT;
	else
		rc = 0;
out:
	file_put(f);
	return rc;
}
