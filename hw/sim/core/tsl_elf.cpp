// ELF32 loader: see tsl_elf.h.
#include "tsl_elf.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

namespace {
uint32_t rd32(const std::vector<uint8_t> &b, size_t off) {
  return b[off] | (b[off + 1] << 8) | (b[off + 2] << 16) | (uint32_t(b[off + 3]) << 24);
}
uint16_t rd16(const std::vector<uint8_t> &b, size_t off) { return b[off] | (b[off + 1] << 8); }
}  // namespace

bool tsl_elf_read(const std::string &path, uint32_t base, uint64_t bytes,
                  std::vector<TslElfSegment> *segs, std::string *err) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    *err = "cannot open " + path;
    return false;
  }
  std::vector<uint8_t> b((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (b.size() < 52 || memcmp(b.data(), "\x7f" "ELF", 4) != 0) {
    *err = path + ": not an ELF file";
    return false;
  }
  if (b[4] != 1 || b[5] != 1 || rd16(b, 18) != 0xf3) {
    *err = path + ": not a little-endian ELF32 RISC-V file";
    return false;
  }
  uint32_t phoff = rd32(b, 28);
  uint16_t phentsize = rd16(b, 42), phnum = rd16(b, 44);
  if (phentsize < 32 || uint64_t(phoff) + uint64_t(phnum) * phentsize > b.size()) {
    *err = path + ": program header table out of range";
    return false;
  }
  segs->clear();
  for (unsigned i = 0; i < phnum; i++) {
    size_t ph = phoff + size_t(i) * phentsize;
    if (rd32(b, ph) != 1) continue;  // PT_LOAD only
    uint32_t off = rd32(b, ph + 4), paddr = rd32(b, ph + 12);
    uint32_t filesz = rd32(b, ph + 16), memsz = rd32(b, ph + 20);
    if (memsz == 0) continue;
    if (filesz > memsz || uint64_t(off) + filesz > b.size()) {
      *err = path + ": segment data out of range";
      return false;
    }
    if (paddr < base || uint64_t(paddr - base) + memsz > bytes) {
      char msg[160];
      snprintf(msg, sizeof msg, ": segment 0x%08x+0x%x lies outside RAM 0x%08x+0x%llx", paddr,
               memsz, base, (unsigned long long)bytes);
      *err = path + msg;
      return false;
    }
    TslElfSegment s;
    s.addr = paddr;
    s.bytes.assign(memsz, 0);
    memcpy(s.bytes.data(), b.data() + off, filesz);
    segs->push_back(std::move(s));
  }
  return true;
}
