// Interrupting the caller's next blocking call: a helper thread sends a
// signal to the calling thread a little later, so that a test can check
// that the call ends with EINTR (or restarts, under SA_RESTART).
//
// Header-only, like the other files in user/lib.
#ifndef USER_POKE_H
#define USER_POKE_H

#include <pthread.h>
#include <signal.h>
#include <time.h>

#define POKE_DELAY_MS 30	// long enough for the call to have blocked

struct poke {
	pthread_t target;
	int sig;
	pthread_t helper;
};

static inline void *poke_run(void *arg)
{
	struct poke *p = arg;
	struct timespec ts = { 0, POKE_DELAY_MS * 1000000L };

	while (nanosleep(&ts, &ts) != 0)
		;
	pthread_kill(p->target, p->sig);
	return NULL;
}

// Sends 'sig' to the calling thread POKE_DELAY_MS from now; poke_join()
// waits for the helper afterwards.  0, or pthread_create's error.
static inline int poke_later(struct poke *p, int sig)
{
	p->target = pthread_self();
	p->sig = sig;
	return pthread_create(&p->helper, NULL, poke_run, p);
}

static inline void poke_join(struct poke *p)
{
	pthread_join(p->helper, NULL);
}

#endif
