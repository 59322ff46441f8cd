// Unit test of the ICI packetizer and ejector (tsl_ici_pkt, tsl_ici_eject: docs/pod.md, The link) at
// N = PE_N, joined as hw/sim/ici/tsl_ici_pe.sv joins them, the ejector's AXI port a 64 KiB HBM here.
//   pe_sim [SENDS] [SEED]      env: SEED=s replays too (the argument wins)
// random: SENDS SENDs of 1..6 write bursts each, as the DMA makes them (W-aligned, 1..16 beats inside
//   a 4 KiB page of the lower 48 KiB; one strobe range: the first beat may start mid-beat, the last
//   end mid-beat; junk in the bytes not strobed), with random gaps on AW and W, about a third of them
//   with TO_LOCAL, whose packets go to a 64 KiB VMEM here that grants at random; meanwhile stream 1
//   carries packets built here (the upper 16 KiB, junk above bit 16 of HBM_ADDR). The HBM stalls AW
//   and W, delays B and answers some writes with SLVERR. Checked: every packetizer packet flit by
//   flit against the format (the bursts cut into packets here on their own); every AW and W beat,
//   and every VMEM line write, against its packet; no AXI write beside a VMEM packet; one b_valid per
//   burst; both memories byte for byte; inc_o once per SEND (and per stream-1 INCR) with its SEM, in
//   the order the writes finished, after the last of its bytes was written; one err_o per error
//   response.
// rate: bursts of 16 full beats back to back, the HBM always ready, and stream 1 at a flit a cycle
//   too when W holds two flits: the share of cycles a flit leaves the packetizer after warm-up (want
//   1.0), and the cycles the ejector held back either stream (want 0).
#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <deque>
#include <string>
#include <vector>

#include "Vtsl_ici_pe.h"
#include "verilated.h"

#include "../common/tsl_rng.h"
#include "ici_harness.h"

extern "C" {
#include "tsl_hw.h"
}

static const uint32_t W = 2 * PE_N, PF = TSL_PARAM_ICI_PACKET_FLITS;
static const uint32_t BPP = std::max(1u, (PF - 1) * 8 / W);   // beats a packet
static const uint32_t MEM = 65536, SPLIT = 49152;             // stream 0 below SPLIT, stream 1 above
static Tally tally{"pe"};
static uint64_t g_seed;

// Bytes of a Verilated port, whatever its C++ type.
template <class T> static uint8_t get_byte(const T &v, uint32_t i) { return (uint8_t)((uint64_t)v >> (8 * i)); }
template <std::size_t K> static uint8_t get_byte(const VlWide<K> &v, uint32_t i) {
    return (uint8_t)(v[i / 4] >> (8 * (i % 4)));
}
template <class T> static void set_bytes(T &v, const uint8_t *b, uint32_t n) {
    uint64_t x = 0;
    for (uint32_t i = 0; i < n; i++)
        x |= (uint64_t)b[i] << (8 * i);
    v = (T)x;
}
template <std::size_t K> static void set_bytes(VlWide<K> &v, const uint8_t *b, uint32_t n) {
    for (std::size_t k = 0; k < K; k++)
        v[k] = 0;
    for (uint32_t i = 0; i < n; i++)
        v[i / 4] |= (uint32_t)b[i] << (8 * (i % 4));
}

struct Packet {
    uint32_t addr, bytes, sem, incr, vmem;
    int send;                       // stream 0: its SEND; stream 1: -1
    std::vector<uint64_t> flits;    // the header first
    std::vector<uint8_t> data;      // the BYTES bytes from HBM_ADDR
};

// The format (docs/pod.md): the header, then the flits of [addr, addr + bytes) from addr & ~7, zero
// outside.
static Packet make_packet(uint32_t x, uint32_t y, uint32_t sem, uint32_t incr, uint32_t vmem, uint32_t addr,
                          const std::vector<uint8_t> &data, int send) {
    Packet p{addr, (uint32_t)data.size(), sem, incr, vmem, send, {}, data};
    uint64_t h = (uint64_t)x << TSL_ICI_HDR_DEST_X_SHIFT | (uint64_t)y << TSL_ICI_HDR_DEST_Y_SHIFT |
                 (uint64_t)sem << TSL_ICI_HDR_SEM_SHIFT | (uint64_t)incr << TSL_ICI_HDR_INCR_SHIFT |
                 (uint64_t)vmem << TSL_ICI_HDR_LOCAL_SHIFT |
                 (uint64_t)p.bytes << TSL_ICI_HDR_BYTES_SHIFT | (uint64_t)addr << 32;
    p.flits.push_back(h);
    uint32_t n = ((addr & 7) + p.bytes + 7) / 8;
    for (uint32_t j = 0; j < n; j++) {
        uint64_t f = 0;
        for (uint32_t k = 0; k < 8; k++) {
            int64_t off = (int64_t)(8 * j + k) - (int64_t)(addr & 7);
            if (off >= 0 && off < (int64_t)p.bytes)
                f |= (uint64_t)data[off] << (8 * k);
        }
        p.flits.push_back(f);
    }
    return p;
}

struct Burst {
    uint32_t addr, beats, incr, x, y, sem, vmem;
    int send;
    std::vector<uint8_t> data, strb;   // beats x W bytes (junk where not strobed), a flag a byte
};

// A burst as the DMA makes it: strobes [s0, (beats - 1) W + e).
static Burst make_burst(TslRng &rng, uint32_t addr, uint32_t beats, uint32_t s0, uint32_t e, int send) {
    Burst b{addr, beats, 0, 0, 0, 0, 0, send, {}, {}};
    for (uint32_t i = 0; i < beats * W; i++) {
        b.data.push_back((uint8_t)rng.next());
        b.strb.push_back(i >= s0 && i < (beats - 1) * W + e);
    }
    return b;
}

// The packets of a burst: BPP beats each, HBM_ADDR and BYTES their strobed range.
static void cut(const Burst &b, std::vector<Packet> &out) {
    for (uint32_t c = 0; c < b.beats; c += BPP) {
        uint32_t end = std::min(b.beats, c + BPP), lo = ~0u;
        std::vector<uint8_t> data;
        for (uint32_t i = c * W; i < end * W; i++)
            if (b.strb[i]) {
                lo = std::min(lo, i);
                data.push_back(b.data[i]);
            }
        out.push_back(make_packet(b.x, b.y, b.sem, b.incr && end == b.beats, b.vmem, b.addr + lo, data, b.send));
    }
}

struct Run {
    Vtsl_ici_pe &t;
    TslRng &rng;
    bool stall;                                // random gaps, stalls, B delays, errors
    std::vector<Burst> bursts;
    std::vector<Packet> exp0, s1;              // stream 0's packets (cut here), stream 1's
    std::vector<uint32_t> send_bytes, send_acked, send_incs;
    std::vector<uint8_t> ref, mem, vref, vmem;
    // the DMA side and stream 1
    size_t aw_next = 0, w_burst = 0, s1_pkt = 0, s1_flit = 0;
    uint32_t w_beat = 0;
    bool aw_on = false, w_on = false, s1_on = false;
    // the wire between packetizer and ejector
    size_t wire_pkt = 0;
    std::vector<uint64_t> wire_cur;
    uint64_t flits = 0, held = 0, held1 = 0, first_flit = 0, last_flit = 0;
    std::vector<uint64_t> flit_at;             // cycles a flit left the packetizer
    // the HBM slave
    struct Aw {
        uint32_t addr, len;
        const Packet *p;
    };
    struct B {
        uint64_t when;
        bool err;
        const Packet *p;
    };
    struct Inc {
        uint32_t sem;
        int send;
        uint64_t by;
    };
    std::deque<Aw> awq;
    std::deque<B> bq;
    std::deque<Inc> incq;
    size_t ax0 = 0, ax1 = 0, vx = 0;           // the next packet of stream 0 on AXI, of stream 1, on VMEM
    uint32_t wbeat = 0, vbeat = 0;
    uint64_t cyc = 0, bvalids = 0, errs_sent = 0, errs_seen = 0;
    // the first mismatch of each kind
    std::string bad_wire, bad_axi, bad_inc;

    Run(Vtsl_ici_pe &top, TslRng &r, bool s)
        : t(top), rng(r), stall(s), ref(MEM, 0), mem(MEM, 0), vref(MEM, 0), vmem(MEM, 0) {}

    // The next packet of stream 0 at or after index i with VMEM v (the AXI and VMEM ones each keep
    // their order).
    size_t next0(size_t i, uint32_t v) const {
        while (i < exp0.size() && exp0[i].vmem != v)
            i++;
        return i;
    }

    __attribute__((format(printf, 2, 3))) static void note(std::string &s, const char *fmt, ...) {
        if (!s.empty())
            return;
        char buf[300];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        s = buf;
    }

    void add_burst(Burst b) {
        for (uint32_t i = 0; i < b.beats * W; i++)
            if (b.strb[i])
                (b.vmem ? vref : ref)[b.addr + i] = b.data[i];
        cut(b, exp0);
        uint32_t n = 0;
        for (uint8_t s : b.strb)
            n += s;
        send_bytes[b.send] += n;
        bursts.push_back(std::move(b));
    }
    void add_s1(Packet p) {
        for (uint32_t i = 0; i < p.bytes; i++)
            ref[(p.addr + i) & (MEM - 1)] = p.data[i];
        s1.push_back(std::move(p));
    }

    bool idle() const {
        return aw_next == bursts.size() && w_burst == bursts.size() && s1_pkt == s1.size() && awq.empty() &&
               bq.empty() && wire_pkt == exp0.size() && next0(ax0, 0) == exp0.size() && ax1 == s1.size() &&
               next0(vx, 1) == exp0.size();
    }

    void step() {
        // inputs: the DMA's AW and W, stream 1, the HBM's readies and B
        if (!aw_on && aw_next < bursts.size() && (!stall || rng.chance(0.6)))
            aw_on = true;
        t.aw_valid_i = aw_on;
        if (aw_on) {
            const Burst &b = bursts[aw_next];
            t.aw_addr_i = b.addr;
            t.aw_len_i = b.beats - 1;
            t.aw_incr_i = b.incr;
            t.aw_dest_x_i = b.x;
            t.aw_dest_y_i = b.y;
            t.aw_sem_i = b.sem;
            t.aw_local_i = b.vmem;
        }
        if (!w_on && w_burst < aw_next && (!stall || rng.chance(0.7)))
            w_on = true;
        t.w_valid_i = w_on;
        if (w_on) {
            const Burst &b = bursts[w_burst];
            set_bytes(t.w_data_i, &b.data[w_beat * W], W);
            uint64_t s = 0;
            for (uint32_t k = 0; k < W; k++)
                s |= (uint64_t)b.strb[w_beat * W + k] << k;
            t.w_strb_i = s;
            t.w_last_i = w_beat + 1 == b.beats;
        }
        if (!s1_on && s1_pkt < s1.size() && (!stall || rng.chance(0.7)))
            s1_on = true;
        t.in1_valid_i = s1_on;
        if (s1_on) {
            t.in1_data_i = s1[s1_pkt].flits[s1_flit];
            t.in1_last_i = s1_flit + 1 == s1[s1_pkt].flits.size();
        }
        bool awready = !stall || rng.chance(0.6);
        bool wready = !awq.empty() && (!stall || rng.chance(0.6));
        bool bvalid = !bq.empty() && bq.front().when <= cyc;
        t.m_axi_awready = awready;
        t.m_axi_wready = wready;
        t.m_axi_bvalid = bvalid;
        t.m_axi_bresp = bvalid && bq.front().err ? 2 : 0;
        t.m_axi_arready = 0;
        t.m_axi_rvalid = 0;
        bool vgnt = !stall || rng.chance(0.6);
        t.lm_gnt_i = vgnt;
        t.eval();

        // outputs
        bool aw_hs = aw_on && t.aw_ready_o, w_hs = w_on && t.w_ready_o, s1_hs = s1_on && t.in1_ready_o;
        if (t.pkt_valid_o && !t.pkt_ready_o)
            held++;
        held1 += s1_on && !t.in1_ready_o;
        if (t.pkt_valid_o && t.pkt_ready_o)
            on_flit(t.pkt_data_o, t.pkt_last_o);
        if (t.m_axi_arvalid)
            note(bad_axi, "cycle %" PRIu64 ": arvalid (the ejector only writes)", cyc);
        if (t.m_axi_awvalid && awready)
            on_aw();
        if (t.m_axi_wvalid && wready)
            on_w();
        if (bvalid && t.m_axi_bready)
            on_b();
        if (t.lm_req_o && vgnt)
            on_vm();
        if (t.lm_req_o && (t.m_axi_awvalid || t.m_axi_wvalid || !bq.empty() || !awq.empty()))
            note(bad_axi, "cycle %" PRIu64 ": a VMEM write beside an AXI write in flight", cyc);
        if (t.inc_o)
            on_inc(t.inc_sem_o);
        if (!incq.empty() && cyc > incq.front().by + 4)
            note(bad_inc, "cycle %" PRIu64 ": no inc_o within 4 cycles of the B of an INCR packet (SEM %u)", cyc,
                 incq.front().sem);
        errs_seen += t.err_o;
        if (t.b_valid_o && ++bvalids > w_burst)
            note(bad_wire, "cycle %" PRIu64 ": b_valid %" PRIu64 " before burst %" PRIu64 "'s last beat", cyc,
                 bvalids, bvalids - 1);
        clock(t);
        cyc++;

        if (aw_hs) {
            aw_next++;
            aw_on = false;
        }
        if (w_hs) {
            w_on = false;
            if (++w_beat == bursts[w_burst].beats) {
                w_beat = 0;
                w_burst++;
            }
        }
        if (s1_hs) {
            s1_on = false;
            if (++s1_flit == s1[s1_pkt].flits.size()) {
                s1_flit = 0;
                s1_pkt++;
            }
        }
    }

    void on_flit(uint64_t d, bool last) {
        if (!flits++)
            first_flit = cyc;
        last_flit = cyc;
        flit_at.push_back(cyc);
        wire_cur.push_back(d);
        if (!last && wire_cur.size() <= PF)
            return;
        if (wire_pkt >= exp0.size()) {
            note(bad_wire, "packet %zu: more packets than the bursts make", wire_pkt);
        } else {
            const std::vector<uint64_t> &e = exp0[wire_pkt].flits;
            for (size_t j = 0; j < std::max(e.size(), wire_cur.size()); j++)
                if (j >= e.size() || j >= wire_cur.size() || e[j] != wire_cur[j])
                    note(bad_wire, "packet %zu flit %zu (of %zu, want %zu%s): want %016" PRIx64 " got %016" PRIx64,
                         wire_pkt, j, wire_cur.size(), e.size(), last ? "" : ", no pkt_last",
                         j < e.size() ? e[j] : 0, j < wire_cur.size() ? wire_cur[j] : 0);
        }
        wire_pkt++;
        wire_cur.clear();
    }

    void on_aw() {
        uint32_t a = t.m_axi_awaddr, len = t.m_axi_awlen;
        const Packet *p = nullptr;
        if (a < SPLIT && (ax0 = next0(ax0, 0)) < exp0.size())
            p = &exp0[ax0++];
        else if (a >= SPLIT && ax1 < s1.size())
            p = &s1[ax1++];
        if (!p) {
            note(bad_axi, "cycle %" PRIu64 ": AW %08x with no packet left for it", cyc, a);
            return;
        }
        uint32_t want = p->addr & ~(W - 1) & (MEM - 1), beats = ((p->addr % W) + p->bytes + W - 1) / W;
        if (a != want || len != beats - 1 || (1u << t.m_axi_awsize) != W || t.m_axi_awburst != 1)
            note(bad_axi, "cycle %" PRIu64 ": AW addr %08x len %u size %u burst %u, want %08x len %u size of %u "
                 "INCR (packet HBM_ADDR %08x BYTES %u)", cyc, a, len, t.m_axi_awsize, t.m_axi_awburst, want,
                 beats - 1, W, p->addr, p->bytes);
        awq.push_back(Aw{a, len, p});
    }

    void on_w() {
        const Aw &w = awq.front();
        uint32_t lo = w.p->addr & (MEM - 1), hi = lo + w.p->bytes;
        uint64_t strb = t.m_axi_wstrb;
        for (uint32_t k = 0; k < W; k++) {
            uint32_t a = w.addr + wbeat * W + k;
            bool on = a >= lo && a < hi, got = strb >> k & 1;
            if (on != got)
                note(bad_axi, "cycle %" PRIu64 ": W beat %u of AW %08x, byte %04x: strobe want %d got %d", cyc, wbeat,
                     w.addr, a, on, got);
            if (!got || a >= MEM)
                continue;
            uint8_t d = get_byte(t.m_axi_wdata, k);
            if (on && d != w.p->data[a - lo])
                note(bad_axi, "cycle %" PRIu64 ": W byte %04x: want %02x got %02x", cyc, a, w.p->data[a - lo], d);
            mem[a] = d;
        }
        bool last = wbeat == w.len;
        if (t.m_axi_wlast != last)
            note(bad_axi, "cycle %" PRIu64 ": W beat %u of AW %08x len %u: wlast %d", cyc, wbeat, w.addr, w.len,
                 t.m_axi_wlast);
        if (!last) {
            wbeat++;
            return;
        }
        wbeat = 0;
        bool err = stall && rng.chance(0.03);
        bq.push_back(B{cyc + 1 + (stall ? rng.below(12) : 0), err, w.p});
        awq.pop_front();
    }

    // A VMEM line write: the next line of the next VMEM packet of stream 0, its strobes exactly the
    // packet's bytes.
    void on_vm() {
        if ((vx = next0(vx, 1)) == exp0.size()) {
            note(bad_axi, "cycle %" PRIu64 ": a VMEM write with no VMEM packet left for it", cyc);
            return;
        }
        const Packet &p = exp0[vx];
        uint32_t line = (p.addr & ~(W - 1)) / W + vbeat, beats = ((p.addr % W) + p.bytes + W - 1) / W;
        if (t.lm_acc_o)
            note(bad_axi, "cycle %" PRIu64 ": an ACC write for a VMEM packet", cyc);
        if (t.lm_addr_o != line)
            note(bad_axi, "cycle %" PRIu64 ": VMEM line %u, want %u (packet ADDR %08x beat %u)", cyc,
                 (uint32_t)t.lm_addr_o, line, p.addr, vbeat);
        uint64_t be = t.lm_be_o;
        for (uint32_t k = 0; k < W; k++) {
            uint32_t a = line * W + k;
            bool on = a >= p.addr && a < p.addr + p.bytes, got = be >> k & 1;
            if (on != got)
                note(bad_axi, "cycle %" PRIu64 ": VMEM byte %04x: enable want %d got %d", cyc, a, on, got);
            if (got && a < MEM)
                vmem[a] = get_byte(t.lm_wdata_o, k);
        }
        if (++vbeat < beats)
            return;
        vbeat = 0;
        vx++;
        if (p.send >= 0)
            send_acked[p.send] += p.bytes;
        if (p.incr)
            incq.push_back(Inc{p.sem, p.send, cyc});
    }

    void on_b() {
        B b = bq.front();
        bq.pop_front();
        errs_sent += b.err;
        if (b.p->send >= 0)
            send_acked[b.p->send] += b.p->bytes;
        if (b.p->incr)
            incq.push_back(Inc{b.p->sem, b.p->send, cyc});
    }

    void on_inc(uint32_t sem) {
        if (incq.empty()) {
            note(bad_inc, "cycle %" PRIu64 ": inc_o (SEM %u) with no INCR packet's B before it", cyc, sem);
            return;
        }
        Inc i = incq.front();
        incq.pop_front();
        if (sem != i.sem)
            note(bad_inc, "cycle %" PRIu64 ": inc_o SEM want %u got %u", cyc, i.sem, sem);
        if (i.send < 0)
            return;
        send_incs[i.send]++;
        if (send_acked[i.send] != send_bytes[i.send])
            note(bad_inc, "cycle %" PRIu64 ": SEND %d's INCR with %u of its %u bytes written", cyc, i.send,
                 send_acked[i.send], send_bytes[i.send]);
    }

    // Run until everything has landed (or the time is up), then the checks.
    void finish(const char *name, uint64_t limit) {
        uint64_t after = 0;
        while (cyc < limit && (!idle() || after++ < 8))
            step();
        char what[400];
        snprintf(what, sizeof what, "%s: finished in %" PRIu64 " cycles: bursts %zu/%zu in, packets %zu/%zu on the "
                 "wire, AW %zu/%zu + %zu/%zu, B left %zu", name, cyc, w_burst, bursts.size(), wire_pkt, exp0.size(),
                 ax0, exp0.size(), ax1, s1.size(), bq.size());
        tally.check(idle(), what, g_seed);
        snprintf(what, sizeof what, "%s: wire: %s", name, bad_wire.c_str());
        tally.check(bad_wire.empty(), what, g_seed);
        snprintf(what, sizeof what, "%s: AXI: %s", name, bad_axi.c_str());
        tally.check(bad_axi.empty(), what, g_seed);
        snprintf(what, sizeof what, "%s: b_valid %" PRIu64 " times for %zu bursts", name, bvalids, bursts.size());
        tally.check(bvalids == bursts.size(), what, g_seed);
        for (int v = 0; v < 2; v++) {
            const std::vector<uint8_t> &want = v ? vref : ref, &got = v ? vmem : mem;
            uint32_t wrong = 0, first = 0;
            for (uint32_t a = MEM; a-- > 0;)
                if (got[a] != want[a]) {
                    wrong++;
                    first = a;
                }
            snprintf(what, sizeof what, "%s: %s: %u bytes differ, first at %04x: want %02x got %02x", name,
                     v ? "VMEM" : "HBM", wrong, first, want[first], got[first]);
            tally.check(!wrong, what, g_seed);
        }
        for (size_t s = 0; s < send_incs.size(); s++)
            if (send_incs[s] != 1)
                note(bad_inc, "SEND %zu: %u INCR pulses, want 1", s, send_incs[s]);
        if (!incq.empty())
            note(bad_inc, "%zu INCR packets' B without an inc_o", incq.size());
        snprintf(what, sizeof what, "%s: INCR: %s", name, bad_inc.c_str());
        tally.check(bad_inc.empty(), what, g_seed);
        snprintf(what, sizeof what, "%s: err_o %" PRIu64 " times for %" PRIu64 " error responses", name, errs_seen,
                 errs_sent);
        tally.check(errs_seen == errs_sent, what, g_seed);
    }
};

static void random_run(TslRng &rng, uint32_t sends) {
    VerilatedContext ctx;
    Vtsl_ici_pe t(&ctx);
    Run r(t, rng, true);
    r.send_bytes.assign(sends, 0);
    r.send_acked.assign(sends, 0);
    r.send_incs.assign(sends, 0);
    for (uint32_t s = 0; s < sends; s++) {
        uint32_t x = rng.below(16), y = rng.below(16), sem = rng.below(TSL_PARAM_ICI_SEMS), vm = rng.chance(0.35);
        for (uint32_t k = 0, n = 1 + rng.below(6); k < n; k++) {
            uint32_t beats = 1 + rng.below(16), page = 4096 / W;
            uint32_t addr = rng.below(SPLIT / 4096) * 4096 + rng.below(page - beats + 1) * W;
            uint32_t s0 = rng.chance(0.5) ? rng.below(W) : 0, e = rng.chance(0.5) ? 1 + rng.below(W) : W;
            if (beats == 1 && e <= s0) {
                s0 = rng.below(W);
                e = s0 + 1 + rng.below(W - s0);
            }
            Burst b = make_burst(rng, addr, beats, s0, e, (int)s);
            b.incr = k + 1 == n;
            b.x = x;
            b.y = y;
            b.sem = sem;
            b.vmem = vm;
            r.add_burst(std::move(b));
        }
    }
    while (r.s1.size() < r.exp0.size())
        for (uint32_t k = 0, n = 1 + rng.below(4); k < n; k++) {
            uint32_t lo = SPLIT + rng.below(MEM - SPLIT), bytes = 1 + rng.below(248);
            bytes = std::min({bytes, 248 - (lo & 7), 4096 - (lo & 4095)});
            std::vector<uint8_t> data;
            for (uint32_t i = 0; i < bytes; i++)
                data.push_back((uint8_t)rng.next());
            r.add_s1(make_packet(rng.below(16), rng.below(16), rng.below(TSL_PARAM_ICI_SEMS), k + 1 == n, 0,
                                 lo | rng.u32() << 16, data, -1));
        }
    reset(t);
    r.finish("random", 200000 + 200 * (uint64_t)r.exp0.size());
    size_t vm = 0;
    for (const Packet &p : r.exp0)
        vm += p.vmem;
    printf("pe: random: %u SENDs, %zu bursts, %zu (%zu into VMEM) + %zu packets, %" PRIu64 " error responses, %" PRIu64
           " cycles\n", sends, r.bursts.size(), r.exp0.size(), vm, r.s1.size(), r.errs_sent, r.cyc);
}

static void rate_run(TslRng &rng) {
    VerilatedContext ctx;
    Vtsl_ici_pe t(&ctx);
    Run r(t, rng, false);
    const uint32_t bursts = 256, warm = 64;
    r.send_bytes.assign(1, 0);
    r.send_acked.assign(1, 0);
    r.send_incs.assign(1, 0);
    for (uint32_t i = 0; i < bursts; i++) {
        Burst b = make_burst(rng, i * 16 * W % SPLIT, 16, 0, W, 0);
        b.incr = i + 1 == bursts;
        r.add_burst(std::move(b));
    }
    // Stream 1 at a flit a cycle too where the AXI side has room for both (W >= 2 flits): packets
    // of 31 payload flits.
    for (uint32_t i = 0; W >= 16 && i < bursts * 16 * W / 248; i++) {
        std::vector<uint8_t> data;
        for (uint32_t k = 0; k < 248; k++)
            data.push_back((uint8_t)rng.next());
        r.add_s1(make_packet(1, 2, 3, 0, 0, SPLIT + i * 256 % (MEM - SPLIT), data, -1));
    }
    reset(t);
    r.finish("rate", 100000 + 100 * (uint64_t)bursts * 16 * W / 8);
    uint64_t from = r.first_flit + warm, span = r.last_flit + 1 - from, n = 0;
    for (uint64_t c : r.flit_at)
        n += c >= from;
    double share = span ? (double)n / (double)span : 0.0;
    char what[300];
    snprintf(what, sizeof what, "rate: %" PRIu64 " flits in %" PRIu64 " cycles after %u of warm-up: %.4f a cycle, "
             "want 1; the ejector held the packetizer %" PRIu64 " cycles and stream 1 (%zu packets) %" PRIu64
             ", want 0", n, span, warm, share, r.held, r.s1.size(), r.held1);
    printf("pe: %s\n", what);
    tally.check(n == span && r.held == 0 && r.held1 == 0, what, g_seed);
}

int main(int argc, char **argv) {
    uint32_t sends = argc > 1 ? (uint32_t)strtoul(argv[1], nullptr, 0) : 300;
    const char *se = argc > 2 ? argv[2] : getenv("SEED");
    g_seed = se ? strtoull(se, nullptr, 0) : (uint64_t)time(nullptr) * 2654435761u;
    printf("pe: seed=0x%016" PRIx64 " (SEED= or a second argument replays), N=%d: W=%u bytes, %u beats a packet, "
           "%u SENDs\n", g_seed, PE_N, W, BPP, sends);
    TslRng rng{g_seed};
    random_run(rng, sends);
    rate_run(rng);
    return tally.done();
}
