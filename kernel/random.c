// The kernel's random numbers: one ChaCha20 generator behind /dev/random,
// /dev/urandom and getrandom(2).
//
// Output is the ChaCha20 key stream of a 256-bit key.  After every
// request the next block of that stream replaces the key ("fast key
// erasure", as in Linux's crng and OpenBSD's arc4random), so whoever
// reads the state later cannot recompute what was handed out before.
//
// The key is seeded on first use from the CPU's hardware source
// (arch_entropy64: RDSEED or RDRAND on x86) where there is one, and from
// the jitter of the clock: the time a short loop takes varies in its low
// bits with caches, interrupts and (under QEMU) the host.  Every
// RESEED_NS the key takes in fresh words from both, so a state that
// leaked does not predict output for long.  Seeding never waits: like
// Linux's getrandom once the pool is initialised, reads never block.

#include <kernel/random.h>
#include <kernel/arch.h>
#include <kernel/spinlock.h>
#include <kernel/time.h>
#include <lib/chacha20.h>
#include <lib/string.h>

#define RESEED_NS	(60ULL * 1000000000ULL)	// Linux's crng reseeds once a minute
#define SEED_WORDS	32			// 64-bit words mixed in at the first seeding
#define CHUNK		256			// bytes produced under the lock at a time

static struct {
	struct spinlock lock;
	uint32_t key[8];
	uint64_t reseed_at;		// clock_monotonic_ns of the next reseed
	bool seeded;
} rng = { .lock = SPINLOCK_INIT("random") };

// The stream block 'counter' of the current key.
static void stream_block(uint64_t counter, uint8_t out[64])
{
	uint32_t in[16];

	chacha20_constants(in);
	memcpy(&in[4], rng.key, sizeof(rng.key));
	in[12] = (uint32_t)counter;
	in[13] = (uint32_t)(counter >> 32);
	in[14] = in[15] = 0;
	chacha20_block(in, out);
}

// Block 0 of the stream becomes the key; it is never handed out.
static void rekey_locked(void)
{
	uint8_t block[64];

	stream_block(0, block);
	memcpy(rng.key, block, sizeof(rng.key));
	memset(block, 0, sizeof(block));
}

// XORs 'n' bytes into the key, 32 at a time, rekeying after each: the
// new key depends on every byte, and on the old key.
static void mix_locked(const uint8_t *data, size_t n)
{
	while (n) {
		size_t chunk = n < sizeof(rng.key) ? n : sizeof(rng.key);
		uint8_t *k = (uint8_t *)rng.key;

		for (size_t i = 0; i < chunk; i++)
			k[i] ^= data[i];
		rekey_locked();
		data += chunk;
		n -= chunk;
	}
}

// 64 bits of clock jitter: the durations of a short loop, folded.
static uint64_t jitter64(void)
{
	uint64_t acc = 0;

	for (int i = 0; i < 64; i++) {
		uint64_t t0 = clock_monotonic_ns();
		volatile uint32_t spin = 0;

		for (int j = 0; j < 16 + (int)(t0 & 15); j++)
			spin += (uint32_t)j;
		uint64_t t1 = clock_monotonic_ns();
		acc = (acc << 7 | acc >> 57) ^ (t1 - t0) ^ t1;
	}
	return acc;
}

// 'words' fresh words from the hardware source and the clock, mixed in.
static void seed_locked(int words)
{
	uint64_t w[SEED_WORDS];

	for (int i = 0; i < words && i < SEED_WORDS; i++) {
		uint64_t hw = 0;

		arch_entropy64(&hw);		// 0 where there is none
		w[i] = hw ^ jitter64();
	}
	mix_locked((const uint8_t *)w, (size_t)words * sizeof(w[0]));
	memset(w, 0, sizeof(w));
	rng.reseed_at = clock_monotonic_ns() + RESEED_NS;
	rng.seeded = true;
}

static void refresh_locked(void)
{
	if (!rng.seeded)
		seed_locked(SEED_WORDS);
	else if (clock_monotonic_ns() >= rng.reseed_at)
		seed_locked(4);
}

// Up to CHUNK bytes from blocks 1.. of the stream, then a new key.
static void generate_locked(uint8_t *out, size_t n)
{
	uint8_t block[64];

	for (uint64_t c = 1; n; c++) {
		size_t take = n < sizeof(block) ? n : sizeof(block);

		stream_block(c, block);
		memcpy(out, block, take);
		out += take;
		n -= take;
	}
	memset(block, 0, sizeof(block));
	rekey_locked();
}

void random_bytes(void *buf, size_t n)
{
	uint8_t *out = buf;

	while (n) {
		size_t chunk = n < CHUNK ? n : CHUNK;
		uint64_t flags = spin_lock_irqsave(&rng.lock);

		refresh_locked();
		generate_locked(out, chunk);
		spin_unlock_irqrestore(&rng.lock, flags);
		out += chunk;
		n -= chunk;
	}
}

void random_mix(const void *data, size_t n)
{
	uint64_t flags = spin_lock_irqsave(&rng.lock);

	refresh_locked();
	mix_locked(data, n);
	spin_unlock_irqrestore(&rng.lock, flags);
}
