// The host and domain names.  One copy, under a lock, read by uname(2)
// and /proc/sys/kernel/{hostname,domainname} and set by sethostname(2),
// setdomainname(2) and writes to those files, so all of them agree.

#include <kernel/uts.h>
#include <kernel/spinlock.h>
#include <kernel/thread.h>
#include <lib/printf.h>
#include <lib/string.h>
#include <uapi/errno.h>
#include <uapi/personality.h>

static struct spinlock uts_lock = SPINLOCK_INIT("uts");
static char names[2][UTS_LEN + 1] = {
	[UTS_HOSTNAME] = "switchyard",	// /etc/hostname in the initramfs says the same
	[UTS_DOMAINNAME] = "(none)",	// Linux's default
};

void uts_get(enum uts_name which, char *buf)
{
	uint64_t flags = spin_lock_irqsave(&uts_lock);

	memcpy(buf, names[which], UTS_LEN + 1);
	spin_unlock_irqrestore(&uts_lock, flags);
}

int uts_set(enum uts_name which, const char *name, size_t len)
{
	uint64_t flags;

	if (len > UTS_LEN)
		return -EINVAL;
	flags = spin_lock_irqsave(&uts_lock);
	memcpy(names[which], name, len);
	memset(names[which] + len, 0, UTS_LEN + 1 - len);
	spin_unlock_irqrestore(&uts_lock, flags);
	return 0;
}

void uts_release(char *buf, size_t size)
{
	const char *rest = UTS_RELEASE, *dot = strchr(UTS_RELEASE, '.');
	unsigned minor = 0;

	if (!personality_has(UNAME26) || !dot) {
		strlcpy(buf, UTS_RELEASE, size);
		return;
	}
	for (const char *d = dot + 1; *d >= '0' && *d <= '9'; d++)
		minor = minor * 10 + (unsigned)(*d - '0');
	// The version numbers (at most three) are replaced; the rest stays.
	for (int dots = 0; *rest && (*rest == '.' || (*rest >= '0' && *rest <= '9')); rest++)
		if (*rest == '.' && ++dots >= 3)
			break;
	ksnprintf(buf, size, "2.6.%u%s", 60 + minor, rest);
}
