// PAPR hypervisor calls used by Switchyard on QEMU's pseries machine
// (the numbers are PAPR's; QEMU implements them in hw/ppc/spapr_hcall.c).
#ifndef ARCH_HCALL_H
#define ARCH_HCALL_H

#include <stdint.h>

#define H_SUCCESS		0
#define H_BUSY			1

#define H_EOI			0x64
#define H_CPPR			0x68
#define H_IPI			0x6c
#define H_XIRR			0x74
#define H_CEDE			0xe0
#define H_PROD			0x108
#define H_GET_TERM_CHAR		0x54
#define H_PUT_TERM_CHAR		0x58
#define H_RANDOM		0x300
#define H_SET_MODE		0x31c
#define H_REGISTER_PROC_TBL	0x37c
#define H_RTAS			0xf000	// QEMU's: RTAS calls without firmware

// H_SET_MODE resources.
#define H_SET_MODE_ADDR_TRANS	3	// LPCR[AIL]: where interrupts land with the MMU on
#define H_SET_MODE_ENDIAN	4	// LPCR[ILE]: interrupts taken little-endian
#define H_SET_MODE_LITTLE	1

long hcall(uint64_t op, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4,
	   uint64_t a5, uint64_t a6);
long hcall_ret(uint64_t ret[4], uint64_t op, uint64_t a1, uint64_t a2, uint64_t a3,
	       uint64_t a4, uint64_t a5, uint64_t a6);

#endif
