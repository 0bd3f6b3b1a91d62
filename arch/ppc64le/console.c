// The console on pseries: the hypervisor's virtual terminal, through
// H_PUT_TERM_CHAR and H_GET_TERM_CHAR (up to 16 bytes a call, packed
// big-endian into two registers).

#include <stdint.h>
#include <arch/hcall.h>
#include <arch/platform.h>
#include <kernel/arch.h>

void arch_console_putc(char c)
{
	uint64_t word = (uint64_t)(uint8_t)c << 56;

	// H_BUSY: the terminal's buffer is full; a bounded number of tries
	// so that a stuck terminal cannot hang the kernel.
	for (int tries = 0; tries < 1000; tries++)
		if (hcall(H_PUT_TERM_CHAR, pseries.vty, 1, word, 0, 0, 0) != H_BUSY)
			return;
}

// Bytes read by one H_GET_TERM_CHAR and not yet handed out.
static uint8_t pending[16];
static int npending, next_pending;

int arch_console_getc(void)
{
	if (next_pending < npending)
		return pending[next_pending++];
	uint64_t ret[4];
	if (hcall_ret(ret, H_GET_TERM_CHAR, pseries.vty, 0, 0, 0, 0, 0) != H_SUCCESS || ret[0] == 0)
		return -1;
	npending = ret[0] > 16 ? 16 : (int)ret[0];
	for (int i = 0; i < npending; i++)
		pending[i] = (uint8_t)(ret[1 + i / 8] >> (56 - 8 * (i % 8)));
	next_pending = 1;
	return pending[0];
}

// The vty's interrupt would need its XICS source enabled through RTAS
// (ibm,int-on); the console polls from the tick instead.
bool arch_console_enable_rx_interrupt(void)
{
	return false;
}
