// /proc/cpuinfo on x86-64: one block per online CPU, with the fields and
// layout of Linux's arch/x86/kernel/cpu/proc.c, from CPUID and the
// calibrated TSC.  The feature flags are those CPUID reports, under
// Linux's names (the table below holds the leaves Linux takes its flags
// from; its synthetic flags, which describe Linux's own decisions, are
// left out).

#include <stdint.h>
#include <arch/cpu_arch.h>
#include <arch/tsc.h>
#include <arch/x86.h>
#include <kernel/arch.h>
#include <kernel/cpu.h>
#include <lib/printf.h>
#include <lib/string.h>

enum { REG_EAX, REG_EBX, REG_ECX, REG_EDX };

struct flag_word {
	uint32_t leaf, subleaf;
	int reg;
	const char *names[32];	// NULL: a bit Linux does not show
};

// In Linux's order of capability words: 0, 1, 4, 6, 9, 10, 12, 16, 18.
static const struct flag_word flag_words[] = {
	{ 1, 0, REG_EDX, {
		[0] = "fpu",
		[1] = "vme",
		[2] = "de",
		[3] = "pse",
		[4] = "tsc",
		[5] = "msr",
		[6] = "pae",
		[7] = "mce",
		[8] = "cx8",
		[9] = "apic",
		[11] = "sep",
		[12] = "mtrr",
		[13] = "pge",
		[14] = "mca",
		[15] = "cmov",
		[16] = "pat",
		[17] = "pse36",
		[18] = "pn",
		[19] = "clflush",
		[21] = "dts",
		[22] = "acpi",
		[23] = "mmx",
		[24] = "fxsr",
		[25] = "sse",
		[26] = "sse2",
		[27] = "ss",
		[28] = "ht",
		[29] = "tm",
		[30] = "ia64",
		[31] = "pbe",
	} },
	{ 0x80000001, 0, REG_EDX, {
		[11] = "syscall",
		[19] = "mp",
		[20] = "nx",
		[22] = "mmxext",
		[25] = "fxsr_opt",
		[26] = "pdpe1gb",
		[27] = "rdtscp",
		[29] = "lm",
		[30] = "3dnowext",
		[31] = "3dnow",
	} },
	{ 1, 0, REG_ECX, {
		[0] = "pni",
		[1] = "pclmulqdq",
		[2] = "dtes64",
		[3] = "monitor",
		[4] = "ds_cpl",
		[5] = "vmx",
		[6] = "smx",
		[7] = "est",
		[8] = "tm2",
		[9] = "ssse3",
		[10] = "cid",
		[11] = "sdbg",
		[12] = "fma",
		[13] = "cx16",
		[14] = "xtpr",
		[15] = "pdcm",
		[17] = "pcid",
		[18] = "dca",
		[19] = "sse4_1",
		[20] = "sse4_2",
		[21] = "x2apic",
		[22] = "movbe",
		[23] = "popcnt",
		[24] = "tsc_deadline_timer",
		[25] = "aes",
		[26] = "xsave",
		[28] = "avx",
		[29] = "f16c",
		[30] = "rdrand",
		[31] = "hypervisor",
	} },
	{ 0x80000001, 0, REG_ECX, {
		[0] = "lahf_lm",
		[1] = "cmp_legacy",
		[2] = "svm",
		[3] = "extapic",
		[4] = "cr8_legacy",
		[5] = "abm",
		[6] = "sse4a",
		[7] = "misalignsse",
		[8] = "3dnowprefetch",
		[9] = "osvw",
		[10] = "ibs",
		[11] = "xop",
		[12] = "skinit",
		[13] = "wdt",
		[15] = "lwp",
		[16] = "fma4",
		[17] = "tce",
		[19] = "nodeid_msr",
		[21] = "tbm",
		[22] = "topoext",
		[23] = "perfctr_core",
		[24] = "perfctr_nb",
		[26] = "bpext",
		[27] = "ptsc",
		[28] = "perfctr_llc",
		[29] = "mwaitx",
	} },
	{ 7, 0, REG_EBX, {
		[0] = "fsgsbase",
		[1] = "tsc_adjust",
		[2] = "sgx",
		[3] = "bmi1",
		[4] = "hle",
		[5] = "avx2",
		[7] = "smep",
		[8] = "bmi2",
		[9] = "erms",
		[10] = "invpcid",
		[11] = "rtm",
		[12] = "cqm",
		[14] = "mpx",
		[15] = "rdt_a",
		[16] = "avx512f",
		[17] = "avx512dq",
		[18] = "rdseed",
		[19] = "adx",
		[20] = "smap",
		[21] = "avx512ifma",
		[23] = "clflushopt",
		[24] = "clwb",
		[25] = "intel_pt",
		[26] = "avx512pf",
		[27] = "avx512er",
		[28] = "avx512cd",
		[29] = "sha_ni",
		[30] = "avx512bw",
		[31] = "avx512vl",
	} },
	{ 0xd, 1, REG_EAX, {
		[0] = "xsaveopt",
		[1] = "xsavec",
		[2] = "xgetbv1",
		[3] = "xsaves",
	} },
	{ 7, 1, REG_EAX, {
		[4] = "avx_vnni",
		[5] = "avx512_bf16",
	} },
	{ 7, 0, REG_ECX, {
		[1] = "avx512vbmi",
		[2] = "umip",
		[3] = "pku",
		[4] = "ospke",
		[5] = "waitpkg",
		[6] = "avx512_vbmi2",
		[8] = "gfni",
		[9] = "vaes",
		[10] = "vpclmulqdq",
		[11] = "avx512_vnni",
		[12] = "avx512_bitalg",
		[13] = "tme",
		[14] = "avx512_vpopcntdq",
		[16] = "la57",
		[22] = "rdpid",
		[24] = "bus_lock_detect",
		[25] = "cldemote",
		[27] = "movdiri",
		[28] = "movdir64b",
		[29] = "enqcmd",
		[30] = "sgx_lc",
	} },
	{ 7, 0, REG_EDX, {
		[2] = "avx512_4vnniw",
		[3] = "avx512_4fmaps",
		[4] = "fsrm",
		[8] = "avx512_vp2intersect",
		[10] = "md_clear",
		[14] = "serialize",
		[16] = "tsxldtrk",
		[18] = "pconfig",
		[19] = "arch_lbr",
		[20] = "ibt",
		[22] = "amx_bf16",
		[23] = "avx512_fp16",
		[24] = "amx_tile",
		[25] = "amx_int8",
		[28] = "flush_l1d",
		[29] = "arch_capabilities",
	} },
};

static uint32_t reg_of(struct cpuid_regs r, int reg)
{
	return reg == REG_EAX ? r.eax : reg == REG_EBX ? r.ebx : reg == REG_ECX ? r.ecx : r.edx;
}

static bool leaf_exists(uint32_t leaf)
{
	uint32_t max = cpuid(leaf & 0x80000000u, 0).eax;

	return leaf <= max;
}

static size_t put_flags(char *buf, size_t size, size_t len)
{
	len = kappendf(buf, size, len, "flags\t\t:");
	for (size_t w = 0; w < sizeof(flag_words) / sizeof(flag_words[0]); w++) {
		const struct flag_word *fw = &flag_words[w];
		uint32_t bits;

		if (!leaf_exists(fw->leaf))
			continue;
		bits = reg_of(cpuid(fw->leaf, fw->subleaf), fw->reg);
		for (int b = 0; b < 32; b++)
			if ((bits & (1u << b)) && fw->names[b])
				len = kappendf(buf, size, len, " %s", fw->names[b]);
	}
	return kappendf(buf, size, len, "\n");
}

// The brand string of leaves 0x80000002..4, without the padding.
static void model_name(char *out, size_t size)
{
	char s[49];
	char *p = s;
	size_t n;

	if (!leaf_exists(0x80000004)) {
		strlcpy(out, "unknown", size);
		return;
	}
	for (uint32_t i = 0; i < 3; i++) {
		struct cpuid_regs r = cpuid(0x80000002 + i, 0);

		memcpy(s + 16 * i, &r.eax, 4);
		memcpy(s + 16 * i + 4, &r.ebx, 4);
		memcpy(s + 16 * i + 8, &r.ecx, 4);
		memcpy(s + 16 * i + 12, &r.edx, 4);
	}
	s[48] = 0;
	while (*p == ' ')
		p++;
	n = strlen(p);
	while (n && p[n - 1] == ' ')
		p[--n] = 0;
	strlcpy(out, *p ? p : "unknown", size);
}

// The cache Linux calls "cache size", in KB: on Intel the last level of
// CPUID leaf 4; elsewhere the L2 of leaf 0x80000006.  0 if unknown.
static uint32_t cache_size_kb(void)
{
	uint32_t best_level = 0, best_kb = 0;

	if (strcmp(cpu_has.vendor, "GenuineIntel") == 0 && leaf_exists(4)) {
		for (uint32_t i = 0; i < 16; i++) {
			struct cpuid_regs r = cpuid(4, i);
			uint32_t type = r.eax & 0x1f, level = (r.eax >> 5) & 7;
			uint64_t bytes;

			if (type == 0)
				break;
			if (type == 2)
				continue;	// instruction cache
			bytes = (uint64_t)((r.ebx >> 22) + 1) * (((r.ebx >> 12) & 0x3ff) + 1) *
				((r.ebx & 0xfff) + 1) * ((uint64_t)r.ecx + 1);
			if (level >= best_level) {
				best_level = level;
				best_kb = (uint32_t)(bytes / 1024);
			}
		}
		return best_kb;
	}
	if (leaf_exists(0x80000006))
		return cpuid(0x80000006, 0).ecx >> 16;
	return 0;
}

// Where a CPU sits, from its APIC ID and the widths CPUID leaf 0xB gives
// its thread and core fields (the same on every CPU).  Without leaf 0xB
// each CPU is a core of package 0.
struct topology {
	uint32_t package, core;
};

struct topology_shifts {
	bool known;
	uint32_t smt, pkg;	// APIC ID bits below the core and the package fields
};

static struct topology_shifts topology_shifts(void)
{
	struct topology_shifts s = { false, 0, 0 };
	struct cpuid_regs r0, r1;

	if (!leaf_exists(0xb))
		return s;
	r0 = cpuid(0xb, 0);
	r1 = cpuid(0xb, 1);
	if (r0.ebx == 0 || ((r0.ecx >> 8) & 0xff) != 1 || ((r1.ecx >> 8) & 0xff) != 2)
		return s;
	s.smt = r0.eax & 0x1f;
	s.pkg = r1.eax & 0x1f;
	s.known = s.pkg >= s.smt && s.pkg < 32;
	return s;
}

static struct topology topology_of(const struct cpu *c, struct topology_shifts s)
{
	struct topology t = { 0, (uint32_t)c->id };

	if (s.known) {
		t.package = c->arch.apic_id >> s.pkg;
		t.core = (c->arch.apic_id >> s.smt) & ((1u << (s.pkg - s.smt)) - 1);
	}
	return t;
}

// Siblings: online CPUs in c's package; cores: distinct core IDs there.
static void package_counts(const struct cpu *c, struct topology_shifts s, int *siblings,
			   int *cores)
{
	struct topology me = topology_of(c, s);
	uint32_t seen[MAX_CPUS];
	int nseen = 0;

	*siblings = 0;
	for (int i = 0; i < ncpus && i < MAX_CPUS; i++) {
		struct topology t;
		bool dup = false;

		if (!cpus[i].online)
			continue;
		t = topology_of(&cpus[i], s);
		if (t.package != me.package)
			continue;
		(*siblings)++;
		for (int j = 0; j < nseen; j++)
			dup |= seen[j] == t.core;
		if (!dup)
			seen[nseen++] = t.core;
	}
	*cores = nseen;
}

// Intel: IA32_BIOS_SIGN_ID after writing 0 and executing CPUID 1 (the
// revision is its high half); AMD and Hygon: PATCH_LEVEL, the same MSR
// number, low half.  Others: unknown, 0.
static uint64_t microcode_revision(void)
{
	if (strcmp(cpu_has.vendor, "GenuineIntel") == 0) {
		wrmsr(0x8b, 0);
		cpuid(1, 0);
		return rdmsr(0x8b) >> 32;
	}
	if (strcmp(cpu_has.vendor, "AuthenticAMD") == 0 ||
	    strcmp(cpu_has.vendor, "HygonGenuine") == 0)
		return (uint32_t)rdmsr(0x8b);
	return 0;
}

unsigned long arch_cpuinfo(const struct cpu *c, char *buf, unsigned long size)
{
	struct cpuid_regs v = cpuid(1, 0);
	uint32_t family = (v.eax >> 8) & 0xf, model = (v.eax >> 4) & 0xf;
	uint32_t phys = 36, virt = 48, kb = cache_size_kb(), clflush = ((v.ebx >> 8) & 0xff) * 8;
	uint64_t hz = tsc_hz();
	struct topology_shifts shifts = topology_shifts();
	struct topology t = topology_of(c, shifts);
	int siblings, cores;
	char name[49];
	size_t len = 0;

	if (family == 0xf)
		family += (v.eax >> 20) & 0xff;
	if (family >= 6)
		model += ((v.eax >> 16) & 0xf) << 4;
	if (leaf_exists(0x80000008)) {
		uint32_t a = cpuid(0x80000008, 0).eax;

		phys = a & 0xff;
		virt = (a >> 8) & 0xff;
	}
	model_name(name, sizeof(name));
	package_counts(c, shifts, &siblings, &cores);

	len = kappendf(buf, size, len, "processor\t: %d\n", c->id);
	len = kappendf(buf, size, len, "vendor_id\t: %s\n", cpu_has.vendor);
	len = kappendf(buf, size, len, "cpu family\t: %u\n", family);
	len = kappendf(buf, size, len, "model\t\t: %u\n", model);
	len = kappendf(buf, size, len, "model name\t: %s\n", name);
	len = kappendf(buf, size, len, "stepping\t: %u\n", v.eax & 0xf);
	if (!cpu_has.hypervisor)	// Linux hides it in a virtual machine
		len = kappendf(buf, size, len, "microcode\t: 0x%lx\n",
			       (unsigned long)microcode_revision());
	len = kappendf(buf, size, len, "cpu MHz\t\t: %lu.%03lu\n", (unsigned long)(hz / 1000000),
		       (unsigned long)(hz / 1000 % 1000));
	if (kb)
		len = kappendf(buf, size, len, "cache size\t: %u KB\n", kb);
	len = kappendf(buf, size, len, "physical id\t: %u\n", t.package);
	len = kappendf(buf, size, len, "siblings\t: %d\n", siblings);
	len = kappendf(buf, size, len, "core id\t\t: %u\n", t.core);
	len = kappendf(buf, size, len, "cpu cores\t: %d\n", cores);
	len = kappendf(buf, size, len, "apicid\t\t: %u\n", c->arch.apic_id);
	len = kappendf(buf, size, len, "initial apicid\t: %u\n", c->arch.apic_id);
	len = kappendf(buf, size, len, "fpu\t\t: yes\n");
	len = kappendf(buf, size, len, "fpu_exception\t: yes\n");
	len = kappendf(buf, size, len, "cpuid level\t: %u\n", cpuid(0, 0).eax);
	len = kappendf(buf, size, len, "wp\t\t: yes\n");
	len = put_flags(buf, size, len);
	len = kappendf(buf, size, len, "bugs\t\t:\n");
	// Linux's BogoMIPS with a TSC delay loop: two loops a TSC cycle.
	len = kappendf(buf, size, len, "bogomips\t: %lu.%02lu\n", (unsigned long)(hz / 500000),
		       (unsigned long)(hz / 5000 % 100));
	len = kappendf(buf, size, len, "clflush size\t: %u\n", clflush);
	len = kappendf(buf, size, len, "cache_alignment\t: %u\n", clflush);
	len = kappendf(buf, size, len, "address sizes\t: %u bits physical, %u bits virtual\n",
		       phys, virt);
	return kappendf(buf, size, len, "power management:\n\n");
}
