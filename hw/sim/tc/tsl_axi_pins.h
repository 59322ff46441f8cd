// Copies one cycle of AXI4 signals between a Verilated top with m_axi_* ports (tsl_tc, tsl_soc,
// tsl_dma_sim) and the TslAxiPins of the HBM model. Per cycle: hbm.drive(p); tsl_axi_to_top(top, p);
// top.eval(); tsl_axi_from_top(top, p); hbm.tick(p); then the clock edge (tsl_hbm.h).
#ifndef TSL_AXI_PINS_H
#define TSL_AXI_PINS_H

#include <cstddef>
#include <cstdint>

#include "tsl_hbm.h"
#include "verilated.h"

// Wide AXI data: Verilator uses 32- or 64-bit integers up to 64 bits and VlWide above.
inline void tsl_put_words(uint32_t &s, const uint32_t *w) { s = w[0]; }
inline void tsl_put_words(uint64_t &s, const uint32_t *w) { s = w[0] | (uint64_t)w[1] << 32; }
template <std::size_t W> void tsl_put_words(VlWide<W> &s, const uint32_t *w) {
    for (std::size_t i = 0; i < W; i++) s[i] = w[i];
}
inline void tsl_get_words(uint32_t s, uint32_t *w) { w[0] = s; }
inline void tsl_get_words(uint64_t s, uint32_t *w) { w[0] = (uint32_t)s, w[1] = (uint32_t)(s >> 32); }
template <std::size_t W> void tsl_get_words(const VlWide<W> &s, uint32_t *w) {
    for (std::size_t i = 0; i < W; i++) w[i] = s[i];
}

// The slave's outputs (from hbm.drive) onto the top's inputs.
template <class Top> void tsl_axi_to_top(Top &t, const TslAxiPins &p) {
    t.m_axi_awready = p.awready;
    t.m_axi_wready = p.wready;
    t.m_axi_bvalid = p.bvalid;
    t.m_axi_bresp = p.bresp;
    t.m_axi_arready = p.arready;
    t.m_axi_rvalid = p.rvalid;
    tsl_put_words(t.m_axi_rdata, p.rdata);
    t.m_axi_rresp = p.rresp;
    t.m_axi_rlast = p.rlast;
}

// The top's master outputs (after eval) into the pins for hbm.tick.
template <class Top> void tsl_axi_from_top(const Top &t, TslAxiPins &p) {
    p.awvalid = t.m_axi_awvalid;
    p.awaddr = t.m_axi_awaddr;
    p.awlen = t.m_axi_awlen;
    p.awsize = t.m_axi_awsize;
    p.awburst = t.m_axi_awburst;
    p.wvalid = t.m_axi_wvalid;
    tsl_get_words(t.m_axi_wdata, p.wdata);
    p.wstrb = t.m_axi_wstrb;
    p.wlast = t.m_axi_wlast;
    p.bready = t.m_axi_bready;
    p.arvalid = t.m_axi_arvalid;
    p.araddr = t.m_axi_araddr;
    p.arlen = t.m_axi_arlen;
    p.arsize = t.m_axi_arsize;
    p.arburst = t.m_axi_arburst;
    p.rready = t.m_axi_rready;
}

#endif  // TSL_AXI_PINS_H
