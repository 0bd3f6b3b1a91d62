# Switchyard kernel build.  `make` builds build/switchyard.elf; the
# ./switchyard script drives userland, initramfs, QEMU and the tests.

ARCH    ?= x86_64

# Per-arch compiler, flags and output directory.  x86-64 builds into
# build/ (as it always has); every other arch into build/<arch>/.
ifeq ($(ARCH),x86_64)
BUILD   := build
CROSS   :=
ARCH_CFLAGS := -mno-red-zone -mcmodel=kernel -mgeneral-regs-only \
           -mno-mmx -mno-sse -mno-sse2 -mno-avx -fno-pic -fno-pie
ARCH_ASFLAGS :=
else ifeq ($(ARCH),ppc64le)
BUILD   := build/ppc64le
CROSS   := powerpc64le-linux-gnu-
# ELFv2, TOC-relative data (r2), no FP/VMX/VSX in kernel code: the
# kernel must never touch a facility it switches lazily for user space.
ARCH_CFLAGS := -mcpu=power9 -mlittle-endian -mabi=elfv2 -mcmodel=medium \
           -msoft-float -mno-altivec -mno-vsx -mno-pointers-to-nested-functions
ARCH_ASFLAGS := -mcpu=power9 -mlittle-endian -mabi=elfv2
else
$(error ARCH=$(ARCH): Switchyard builds for x86_64 and ppc64le)
endif

CC      := $(CROSS)gcc
LD      := $(CROSS)ld
NM      := $(CROSS)nm
KERNEL  := $(BUILD)/switchyard.elf

CFLAGS  := -std=c11 -O2 -g -Wall -Wextra -Werror \
           -ffreestanding -fno-builtin -nostdlib \
           -fno-stack-protector -fno-omit-frame-pointer -fno-strict-aliasing \
           $(ARCH_CFLAGS) -Iinclude -Iarch/$(ARCH)/include -MMD -MP
GEN     := $(BUILD)/gen
ASFLAGS := -g -D__ASSEMBLY__ $(ARCH_ASFLAGS) -Iinclude -Iarch/$(ARCH)/include -I$(GEN) -MMD -MP
LDFLAGS := -nostdlib -z max-page-size=4096 -z noexecstack --no-warn-rwx-segments

SRCS    := $(wildcard arch/$(ARCH)/*.c arch/$(ARCH)/*.S) \
           $(wildcard kernel/*.c kernel/*/*.c)
OBJS    := $(patsubst %,$(BUILD)/%.o,$(SRCS))

ifeq ($(ARCH),ppc64le)
all: $(KERNEL) $(BUILD)/firmware.bin
else
all: $(KERNEL)
endif

# QEMU's pseries machine starts its firmware at 0x100 with the device tree
# in r3, and loads -kernel at 0x400000.  Switchyard's firmware
# (arch/ppc64le/firmware/) adds the RTAS entry Linux needs to the tree and
# jumps there (docs/ppc64.md).  Big-endian, freestanding, no FP or vector
# code; its image starts at 0, so 256 zero bytes go in front.
FW_DIR    := arch/ppc64le/firmware
FW_CFLAGS := -std=gnu11 -O2 -Wall -Wextra -Werror -mbig-endian -mabi=elfv2 \
	     -ffreestanding -fno-pic -fno-stack-protector -mcmodel=medium \
	     -msoft-float -mno-altivec -mno-vsx -fno-tree-loop-distribute-patterns \
	     -Iinclude -DFIRMWARE_STACK_TOP=0x200000
$(BUILD)/firmware.bin: $(FW_DIR)/entry.S $(FW_DIR)/firmware.c $(FW_DIR)/firmware.h $(FW_DIR)/firmware.ld \
		      kernel/lib/fdt.c include/lib/fdt.h
	@mkdir -p $(BUILD)/firmware
	@echo "  FW      $@"
	@$(CC) $(FW_CFLAGS) -c $(FW_DIR)/entry.S -o $(BUILD)/firmware/entry.o
	@$(CC) $(FW_CFLAGS) -c $(FW_DIR)/firmware.c -o $(BUILD)/firmware/firmware.o
	@$(CC) $(FW_CFLAGS) -c kernel/lib/fdt.c -o $(BUILD)/firmware/fdt.o
	@$(LD) -EB -m elf64ppc -nostdlib --no-warn-rwx-segments -T $(FW_DIR)/firmware.ld -o $(BUILD)/firmware/firmware.elf \
		$(BUILD)/firmware/entry.o $(BUILD)/firmware/firmware.o $(BUILD)/firmware/fdt.o
	@$(CROSS)objcopy -O binary $(BUILD)/firmware/firmware.elf $(BUILD)/firmware/firmware.raw
	@{ head -c 256 /dev/zero; cat $(BUILD)/firmware/firmware.raw; } > $@

$(BUILD)/%.c.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/%.S.o: %.S $(GEN)/arch/asm_offsets.h
	@mkdir -p $(dir $@)
	@echo "  AS      $<"
	@$(CC) $(ASFLAGS) -c $< -o $@

# The structure offsets the assembly uses (<arch/asm_offsets.h>), from
# the compiler: arch/$(ARCH)/gen/asm_offsets.c compiled to assembly, its
# "->NAME VALUE" lines made into defines.
$(GEN)/arch/asm_offsets.h: arch/$(ARCH)/gen/asm_offsets.c
	@mkdir -p $(dir $@)
	@echo "  GEN     $@"
	@$(CC) $(CFLAGS) -MF $(GEN)/asm_offsets.d -MT $@ -S $< -o $(GEN)/asm_offsets.s
	@{ echo "// Generated from $< by the Makefile: do not edit."; \
	   echo "#ifndef ARCH_ASM_OFFSETS_H"; echo "#define ARCH_ASM_OFFSETS_H"; \
	   sed -n 's/.*"->\([A-Z0-9_]*\) \([0-9]*\)".*/#define \1 \2/p' $(GEN)/asm_offsets.s; \
	   echo "#endif"; } > $@.tmp
	@grep -q '^#define' $@.tmp || { echo "asm_offsets: no offsets in $(GEN)/asm_offsets.s"; exit 1; }
	@mv $@.tmp $@

# The kernel links twice: the second link embeds a symbol table (for
# backtraces) generated from the first.  The table sits after every other
# section, so it does not move any symbol it describes.
$(KERNEL): $(OBJS) arch/$(ARCH)/linker.ld scripts/gen-ksyms.sh
	@echo "  LD      $@"
	@$(LD) $(LDFLAGS) -T arch/$(ARCH)/linker.ld -o $(BUILD)/pass1.elf $(OBJS)
	@NM=$(NM) scripts/gen-ksyms.sh $(BUILD)/pass1.elf > $(BUILD)/ksyms.S
	@$(CC) $(ASFLAGS) -c $(BUILD)/ksyms.S -o $(BUILD)/ksyms.o
	@$(LD) $(LDFLAGS) -T arch/$(ARCH)/linker.ld -o $@ $(OBJS) $(BUILD)/ksyms.o
	@NM=$(NM) scripts/gen-ksyms.sh $@ | cmp -s - $(BUILD)/ksyms.S || \
		{ echo "ksyms: symbol addresses moved between links"; exit 1; }

host-test:
	$(MAKE) -C tests/host run

# Wrappers around ./switchyard for people used to make.
test:
	./switchyard test

run:
	./switchyard run

debug:
	./switchyard debug

bench:
	./switchyard bench

clean:
	rm -rf $(BUILD)

-include $(OBJS:.o=.d) $(GEN)/asm_offsets.d

.PHONY: all clean host-test test run debug bench
