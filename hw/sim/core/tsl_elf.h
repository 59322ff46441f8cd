// ELF32 RISC-V loader for the Tessel simulators (tessel-run, tessel): reads the PT_LOAD segments
// of an executable and checks that each lies inside one memory range; the caller writes them.
#ifndef TSL_ELF_H
#define TSL_ELF_H

#include <cstdint>
#include <string>
#include <vector>

struct TslElfSegment {
  uint32_t addr;               // load (physical) address
  std::vector<uint8_t> bytes;  // memsz bytes: file data, then zeros (.bss)
};

// Read every non-empty PT_LOAD segment of the ELF32 RISC-V file at path. Returns false and sets
// *err on a missing or malformed file or a segment outside [base, base + bytes).
bool tsl_elf_read(const std::string &path, uint32_t base, uint64_t bytes,
                  std::vector<TslElfSegment> *segs, std::string *err);

#endif  // TSL_ELF_H
