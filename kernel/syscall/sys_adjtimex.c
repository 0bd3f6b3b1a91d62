// adjtimex and clock_adjtime, over Linux's NTP state (kernel/time/ntp.c):
// the clock reads as unsynchronized (TIME_ERROR, STA_UNSYNC) until told
// otherwise, the state fields are kept and reported, ADJ_SETOFFSET steps
// the clock.  Switchyard has no clock discipline: nothing changes the
// rate of its clocks, so a setting that would (a frequency other than 0,
// a tick other than 10000 us, a PLL offset, an adjtime slew, a leap
// second to insert or delete) is refused with EINVAL rather than kept
// and ignored; with those left alone the answers are Linux's.

#include <kernel/syscall.h>
#include <kernel/cred.h>
#include <kernel/spinlock.h>
#include <kernel/time.h>
#include <kernel/cputime.h>
#include <kernel/uaccess.h>
#include <lib/string.h>
#include <uapi/errno.h>

#define ADJ_OFFSET		0x0001
#define ADJ_FREQUENCY		0x0002
#define ADJ_MAXERROR		0x0004
#define ADJ_ESTERROR		0x0008
#define ADJ_STATUS		0x0010
#define ADJ_TIMECONST		0x0020
#define ADJ_TAI			0x0080
#define ADJ_SETOFFSET		0x0100
#define ADJ_MICRO		0x1000
#define ADJ_NANO		0x2000
#define ADJ_TICK		0x4000
#define ADJ_OFFSET_SINGLESHOT	0x8001
#define ADJ_OFFSET_READONLY	0x2000
#define ADJ_ADJTIME		0x8000

#define STA_PLL		0x0001
#define STA_PPSFREQ	0x0002
#define STA_PPSTIME	0x0004
#define STA_FLL		0x0008
#define STA_INS		0x0010
#define STA_DEL		0x0020
#define STA_UNSYNC	0x0040
#define STA_FREQHOLD	0x0080
#define STA_PPSSIGNAL	0x0100
#define STA_PPSJITTER	0x0200
#define STA_PPSWANDER	0x0400
#define STA_PPSERROR	0x0800
#define STA_CLOCKERR	0x1000
#define STA_NANO	0x2000
#define STA_RONLY	(STA_PPSSIGNAL | STA_PPSJITTER | STA_PPSWANDER | STA_PPSERROR | \
			 STA_CLOCKERR | STA_NANO | 0x4000 | 0x8000)

#define TIME_OK		0
#define TIME_ERROR	5
#define NTP_PHASE_LIMIT	16000000	// us: time_maxerror and esterror at boot
#define MAXTC		10
#define MAX_TAI_OFFSET	100000
#define USER_HZ		100
#define TICK_USEC	(1000000 / USER_HZ)
#define TOLERANCE	32768000	// MAXFREQ_SCALED / PPM_SCALE: 500 ppm << 16
#define CLOCK_REALTIME	0

struct user_timex {
	uint32_t modes;
	int32_t pad0;
	int64_t offset, freq, maxerror, esterror;
	int32_t status;
	int32_t pad1;
	int64_t constant, precision, tolerance;
	int64_t tv_sec, tv_usec;
	int64_t tick, ppsfreq, jitter;
	int32_t shift;
	int32_t pad2;
	int64_t stabil, jitcnt, calcnt, errcnt, stbcnt;
	int32_t tai;
	int32_t pad3[11];
};

_Static_assert(sizeof(struct user_timex) == 208, "struct __kernel_timex is 208 bytes");

static struct spinlock ntp_lock = SPINLOCK_INIT("ntp");
static int ntp_status = STA_UNSYNC;
static int64_t ntp_maxerror = NTP_PHASE_LIMIT, ntp_esterror = NTP_PHASE_LIMIT;
static int64_t ntp_constant = 2;
static int ntp_tai;

// Linux's timekeeping_validate_timex, then the settings this kernel
// cannot carry out (see the top).
static long validate(const struct user_timex *tx)
{
	bool privileged = cred_capable(current_cred(), CAP_SYS_TIME);

	if (tx->modes & ADJ_ADJTIME) {
		if ((tx->modes & ADJ_OFFSET_SINGLESHOT) != ADJ_OFFSET_SINGLESHOT)
			return -EINVAL;		// singleshot alone
		if (!(tx->modes & ADJ_OFFSET_READONLY) && !privileged)
			return -EPERM;
	} else {
		if (tx->modes && !privileged)
			return -EPERM;
		if ((tx->modes & ADJ_TICK) &&
		    (tx->tick < 900000 / USER_HZ || tx->tick > 1100000 / USER_HZ))
			return -EINVAL;
	}
	if (tx->modes & ADJ_SETOFFSET) {
		if (!privileged)
			return -EPERM;
		if (tx->tv_usec < 0 || tx->tv_usec >= ((tx->modes & ADJ_NANO) ? 1000000000 : 1000000))
			return -EINVAL;
	}
	if ((tx->modes & ADJ_FREQUENCY) && (tx->freq < INT64_MIN / 1000 || tx->freq > INT64_MAX / 1000))
		return -EINVAL;
	// What would need a clock discipline.
	if (tx->modes & ADJ_ADJTIME)
		return (!(tx->modes & ADJ_OFFSET_READONLY) && tx->offset) ? -EINVAL : 0;
	if (((tx->modes & ADJ_FREQUENCY) && tx->freq) ||
	    ((tx->modes & ADJ_TICK) && tx->tick != TICK_USEC) ||
	    ((tx->modes & ADJ_STATUS) && (tx->status & (STA_INS | STA_DEL))))
		return -EINVAL;
	return 0;
}

// Linux's process_adjtimex_modes for the state this kernel keeps
// (ntp_lock held).  -EINVAL for a PLL offset (the status as it would be
// then decides, as ntp_update_offset).
static long apply_locked(const struct user_timex *tx)
{
	int status = ntp_status;

	if (tx->modes & ADJ_STATUS) {
		if ((status & STA_PLL) && !(tx->status & STA_PLL))
			status = STA_UNSYNC;
		status = (status & STA_RONLY) | (tx->status & ~STA_RONLY);
	}
	if (tx->modes & ADJ_NANO)
		status |= STA_NANO;
	if (tx->modes & ADJ_MICRO)
		status &= ~STA_NANO;
	if ((tx->modes & ADJ_OFFSET) && (status & STA_PLL) && tx->offset)
		return -EINVAL;
	ntp_status = status;
	if (tx->modes & ADJ_MAXERROR)
		ntp_maxerror = tx->maxerror;
	if (tx->modes & ADJ_ESTERROR)
		ntp_esterror = tx->esterror;
	if (tx->modes & ADJ_TIMECONST) {
		int64_t c = tx->constant + ((ntp_status & STA_NANO) ? 0 : 4);
		ntp_constant = c > MAXTC ? MAXTC : c < 0 ? 0 : c;
	}
	if ((tx->modes & ADJ_TAI) && tx->constant >= 0 && tx->constant <= MAX_TAI_OFFSET)
		ntp_tai = (int)tx->constant;
	return 0;
}

static bool error_status(int s)
{
	if (s & (STA_UNSYNC | STA_CLOCKERR))
		return true;
	if ((s & (STA_PPSFREQ | STA_PPSTIME)) && !(s & STA_PPSSIGNAL))
		return true;
	if ((s & STA_PPSTIME) && (s & STA_PPSJITTER))
		return true;
	return (s & STA_PPSFREQ) && (s & (STA_PPSWANDER | STA_PPSERROR));
}

static long do_adjtimex(uint64_t utx)
{
	struct user_timex tx;
	long rc;

	if (copy_from_user(&tx, utx, sizeof(tx)) < 0)
		return -EFAULT;
	rc = validate(&tx);
	if (rc)
		return rc;
	if (tx.modes & ADJ_SETOFFSET) {
		int64_t ns = tx.tv_usec * ((tx.modes & ADJ_NANO) ? 1 : 1000);
		if (__builtin_mul_overflow(tx.tv_sec, 1000000000LL, &tx.tv_sec) ||
		    __builtin_add_overflow(tx.tv_sec, ns, &ns))
			return -EINVAL;
		rc = clock_realtime_inject(ns);
		if (rc)
			return rc;
	}
	uint64_t now = clock_realtime_ns();
	uint64_t flags = spin_lock_irqsave(&ntp_lock);
	if (!(tx.modes & ADJ_ADJTIME) && tx.modes)
		rc = apply_locked(&tx);
	if (rc == 0) {
		tx.offset = 0;		// no PLL offset and no adjtime slew pending
		rc = error_status(ntp_status) ? TIME_ERROR : TIME_OK;
		tx.freq = 0;
		tx.maxerror = ntp_maxerror;
		tx.esterror = ntp_esterror;
		tx.status = ntp_status;
		tx.constant = ntp_constant;
		tx.precision = 1;
		tx.tolerance = TOLERANCE;
		tx.tick = TICK_USEC;
		tx.tai = ntp_tai;
		tx.ppsfreq = tx.jitter = tx.stabil = tx.jitcnt = tx.calcnt = tx.errcnt = tx.stbcnt = 0;
		tx.shift = 0;
		tx.tv_sec = (int64_t)(now / 1000000000ULL);
		tx.tv_usec = (int64_t)(now % 1000000000ULL);
		if (!(ntp_status & STA_NANO))
			tx.tv_usec /= 1000;
	}
	spin_unlock_irqrestore(&ntp_lock, flags);
	if (rc < 0)
		return rc;
	return copy_to_user(utx, &tx, sizeof(tx)) < 0 ? -EFAULT : rc;
}

SYSCALL_DEFINE(SYS_adjtimex, adjtimex)
{
	return do_adjtimex(args->a[0]);
}

// clock_adjtime: CLOCK_REALTIME is adjtimex; the other clocks of Linux
// have no adjustment (EOPNOTSUPP), an unknown one is EINVAL.
SYSCALL_DEFINE(SYS_clock_adjtime, clock_adjtime)
{
	int id = (int)args->a[0];

	if (id == CLOCK_REALTIME)
		return do_adjtimex(args->a[1]);
	if (cpu_clock_id(id) || (id >= 1 && id <= 11 && id != 10))	// 10: unused
		return -EOPNOTSUPP;
	return -EINVAL;
}
