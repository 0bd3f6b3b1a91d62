// ACPI table walking: RSDP -> XSDT (or RSDT) -> MADT, FADT, HPET.  The
// MADT lists the local APICs (one per CPU), the IOAPICs and the ISA
// interrupt overrides; the FADT says where the PM timer is, the HPET table
// where the HPET is (both are clock references for calibrating the TSC).

#include <stdint.h>
#include <arch/acpi.h>
#include <mm/phys.h>
#include <kernel/console.h>
#include <lib/string.h>

struct acpi_info acpi;

struct rsdp {
	char signature[8];
	uint8_t checksum;
	char oem[6];
	uint8_t revision;
	uint32_t rsdt;
	uint32_t length;
	uint64_t xsdt;
	uint8_t ext_checksum;
	uint8_t reserved[3];
} __attribute__((packed));

struct sdt_header {
	char signature[4];
	uint32_t length;
	uint8_t revision;
	uint8_t checksum;
	char oem[6];
	char oem_table[8];
	uint32_t oem_revision;
	uint32_t creator;
	uint32_t creator_revision;
} __attribute__((packed));

struct madt {
	struct sdt_header h;
	uint32_t lapic_addr;
	uint32_t flags;
	uint8_t entries[];
} __attribute__((packed));

// FADT offsets (ACPI 6): the fields around the PM timer.
#define FADT_PM_TMR_BLK		76	// 32-bit I/O port
#define FADT_PM_TMR_LEN		91
#define FADT_FLAGS		112
#define FADT_X_PM_TMR_BLK	208	// generic address structure
#define FADT_FLAG_TMR_VAL_EXT	(1u << 8)	// 32-bit timer, not 24
#define FADT_FLAG_HW_REDUCED	(1u << 20)	// no fixed hardware (microvm)

// The HPET table's generic address structure of the registers.
#define HPET_ADDRESS		40

#define GAS_SYSTEM_MEMORY	0
#define GAS_SYSTEM_IO		1

static int checksum_ok(const void *p, uint32_t len)
{
	const uint8_t *b = p;
	uint8_t sum = 0;
	for (uint32_t i = 0; i < len; i++)
		sum += b[i];
	return sum == 0;
}

static const struct sdt_header *find_table(const struct rsdp *rsdp, const char *sig)
{
	bool x = rsdp->revision >= 2 && rsdp->xsdt;
	const struct sdt_header *root = phys_to_virt(x ? rsdp->xsdt : rsdp->rsdt);
	uint32_t width = x ? 8 : 4;
	uint32_t n = (root->length - sizeof(*root)) / width;
	const uint8_t *ptrs = (const uint8_t *)(root + 1);

	for (uint32_t i = 0; i < n; i++) {
		uint64_t pa = 0;
		memcpy(&pa, ptrs + i * width, width);
		const struct sdt_header *t = phys_to_virt(pa);
		if (memcmp(t->signature, sig, 4) == 0 && checksum_ok(t, t->length))
			return t;
	}
	return 0;
}

static void add_cpu(uint32_t apic_id, uint32_t boot_apic_id)
{
	if (acpi.ncpus >= 64)
		return;
	// Keep the boot CPU in slot 0 so logical CPU 0 is the one running now.
	if (apic_id == boot_apic_id) {
		for (int i = acpi.ncpus; i > 0; i--)
			acpi.apic_ids[i] = acpi.apic_ids[i - 1];
		acpi.apic_ids[0] = apic_id;
	} else {
		acpi.apic_ids[acpi.ncpus] = apic_id;
	}
	acpi.ncpus++;
}

static void parse_madt(const struct madt *m, uint32_t boot_apic_id)
{
	const uint8_t *p = m->entries;
	const uint8_t *end = (const uint8_t *)m + m->h.length;

	acpi.lapic_pa = m->lapic_addr;
	while (p + 2 <= end && p[1] >= 2) {
		switch (p[0]) {
		case 0:	// processor local APIC: flags bit 0 = enabled
			if (p[4] & 1)
				add_cpu(p[3], boot_apic_id);
			break;
		case 1:	// IOAPIC
			if (!acpi.ioapic_pa) {
				uint32_t addr, gsi;
				memcpy(&addr, p + 4, 4);
				memcpy(&gsi, p + 8, 4);
				acpi.ioapic_pa = addr;
				acpi.ioapic_gsi_base = gsi;
			}
			break;
		case 2: { // interrupt source override
			uint32_t gsi;
			memcpy(&gsi, p + 4, 4);
			if (p[3] < 16)
				acpi.isa_irq_gsi[p[3]] = gsi;
			break;
		}
		case 5: // 64-bit local APIC address override
			memcpy(&acpi.lapic_pa, p + 4, 8);
			break;
		case 9: { // processor local x2APIC
			uint32_t id, flags;
			memcpy(&id, p + 4, 4);
			memcpy(&flags, p + 8, 4);
			if (flags & 1)
				add_cpu(id, boot_apic_id);
			break;
		}
		}
		p += p[1];
	}
}

static uint32_t le32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

// A generic address structure at p: its address if it lies in 'space'.
static uint64_t gas_address(const uint8_t *p, uint8_t space)
{
	uint64_t addr;

	if (p[0] != space)
		return 0;
	memcpy(&addr, p + 4, 8);
	return addr;
}

static void parse_fadt(const struct sdt_header *h)
{
	const uint8_t *f = (const uint8_t *)h;
	uint64_t port = 0;

	if (h->length < FADT_FLAGS + 4)
		return;
	uint32_t flags = le32(f + FADT_FLAGS);
	if (flags & FADT_FLAG_HW_REDUCED)
		return;
	if (h->length >= FADT_X_PM_TMR_BLK + 12)
		port = gas_address(f + FADT_X_PM_TMR_BLK, GAS_SYSTEM_IO);
	if (!port && f[FADT_PM_TMR_LEN] == 4)
		port = le32(f + FADT_PM_TMR_BLK);
	if (!port || port > 0xfffc)
		return;
	acpi.pm_timer_port = (uint16_t)port;
	acpi.pm_timer_bits = flags & FADT_FLAG_TMR_VAL_EXT ? 32 : 24;
}

static void parse_hpet(const struct sdt_header *h)
{
	if (h->length < HPET_ADDRESS + 12)
		return;
	acpi.hpet_pa = gas_address((const uint8_t *)h + HPET_ADDRESS, GAS_SYSTEM_MEMORY);
}

int acpi_init(uint64_t rsdp_pa, uint32_t boot_apic_id)
{
	for (int i = 0; i < 16; i++)
		acpi.isa_irq_gsi[i] = i;
	acpi.lapic_pa = 0xfee00000;
	if (!rsdp_pa)
		return -1;
	const struct rsdp *rsdp = phys_to_virt(rsdp_pa);
	if (memcmp(rsdp->signature, "RSD PTR ", 8) || !checksum_ok(rsdp, 20))
		return -1;
	const struct sdt_header *t = find_table(rsdp, "FACP");
	if (t)
		parse_fadt(t);
	t = find_table(rsdp, "HPET");
	if (t)
		parse_hpet(t);
	const struct madt *m = (const struct madt *)find_table(rsdp, "APIC");
	if (!m)
		return -1;
	parse_madt(m, boot_apic_id);
	return acpi.ncpus > 0 ? 0 : -1;
}
