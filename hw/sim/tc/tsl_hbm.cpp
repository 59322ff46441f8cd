// tsl_hbm: AXI4 slave model of HBM. See tsl_hbm.h for the contract and the per-cycle call order.
#include "tsl_hbm.h"

#include "../common/tsl_rng.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace {
std::string fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char *f, ...) {
    char buf[256];
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, sizeof buf, f, ap);
    va_end(ap);
    return buf;
}

uint64_t sat_add(uint64_t a, uint64_t b) { return a + b < a ? ~0ull : a + b; }
}  // namespace

TslHbm::TslHbm(const TslHbmCfg &cfg) : cfg_(cfg) {
    unsigned db = cfg.data_bytes;
    if (db < 4 || db > 64 || (db & (db - 1)))
        throw std::invalid_argument(fmt("TslHbm: data_bytes %u must be a power of two in 4..64", db));
    if (cfg.bytes == 0 || cfg.bytes > (1ull << 32))
        throw std::invalid_argument("TslHbm: bytes must be in 1..4 GiB");
    if (cfg.bytes_per_cycle == 0 || cfg.max_outstanding == 0 || cfg.ready_percent == 0)
        throw std::invalid_argument("TslHbm: bytes_per_cycle, max_outstanding and ready_percent must be > 0");
    mem_.assign(cfg.bytes, 0);
    rng_ = cfg.seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    set_bytes_per_cycle(cfg.bytes_per_cycle);
    plan();
}

void TslHbm::set_bytes_per_cycle(unsigned bpc) {
    cfg_.bytes_per_cycle = bpc ? bpc : 1;
    token_cap_ = 2ull * std::max(cfg_.data_bytes, cfg_.bytes_per_cycle);
    tokens_ = token_cap_;
}

void TslHbm::inject(uint64_t addr, uint64_t len, bool on_write, uint8_t resp) {
    inj_.push_back({addr, len, on_write, resp});
}

void TslHbm::stall(uint64_t addr, uint64_t len, bool on_write, uint64_t delay) {
    stalls_.push_back({addr, len, on_write, delay});
}

void TslHbm::release_stalls() {
    stalls_.clear();
    for (Burst &b : rq_)
        if (b.held) b.ready_cycle = std::min(b.ready_cycle, cycle_);
    for (Burst &b : wq_)
        if (b.held) b.ready_cycle = 0;
    for (BResp &r : bq_) r.ready_cycle = std::min(r.ready_cycle, cycle_);
}

uint64_t TslHbm::take_stall(uint32_t addr, unsigned beats, bool on_write) {
    uint64_t hi = (addr & ~(uint64_t)(cfg_.data_bytes - 1)) + (uint64_t)beats * cfg_.data_bytes;
    for (size_t i = 0; i < stalls_.size(); i++) {
        const Stall &st = stalls_[i];
        if (st.on_write == on_write && addr < st.addr + st.len && st.addr < hi) {
            uint64_t d = std::max<uint64_t>(st.delay, 1);
            stalls_.erase(stalls_.begin() + (long)i);
            stalls_hit_++;
            return d;
        }
    }
    return 0;
}

bool TslHbm::chance() {
    if (cfg_.ready_percent >= 100) return true;
    return tsl_splitmix64(&rng_) % 100 < cfg_.ready_percent;
}

void TslHbm::violation(const std::string &s) {
    if (viol_.size() < 100) viol_.push_back(fmt("cycle %llu: ", (unsigned long long)cycle_) + s);
}

uint8_t TslHbm::beat_resp(uint64_t lo, uint64_t hi, bool on_write) const {
    uint8_t r = 0;
    if (hi > cfg_.bytes) r = 3;
    for (const Inj &i : inj_)
        if (i.on_write == on_write && lo < i.addr + i.len && i.addr < hi) r = std::max(r, i.resp);
    return r;
}

uint64_t TslHbm::beat_addr(const Burst &b, unsigned i) const {
    uint64_t aligned = b.addr & ~(uint64_t)(cfg_.data_bytes - 1);
    return i == 0 ? b.addr : aligned + (uint64_t)i * cfg_.data_bytes;
}

void TslHbm::check_ax(const char *ch, uint32_t addr, uint8_t len, uint8_t size, uint8_t burst) {
    unsigned db = cfg_.data_bytes;
    if ((1u << size) != db) violation(fmt("%s size %u, expected log2(%u)", ch, size, db));
    if (burst != 1) violation(fmt("%s burst type %u is not INCR", ch, burst));
    uint64_t end = (addr & ~(uint64_t)((1u << size) - 1)) + (uint64_t)(len + 1) * (1u << size) - 1;
    if ((addr >> 12) != (end >> 12))
        violation(fmt("%s 0x%08x len %u crosses a 4 KiB boundary", ch, addr, len + 1));
}

void TslHbm::apply_w(const WBeat &w) {
    Burst &b = wq_.front();
    unsigned db = cfg_.data_bytes, i = b.beats_done;
    uint64_t lo = beat_addr(b, i), base = lo & ~(uint64_t)(db - 1);
    if (w.last != (i + 1 == b.len))
        violation(fmt("WLAST=%d on beat %u of a %u-beat burst at 0x%08x", w.last, i, b.len, b.addr));
    uint8_t r = beat_resp(lo, base + db, true);
    if (r == 0) {
        for (unsigned j = 0; j < db; j++) {
            if (!((w.strb >> j) & 1) || base + j < lo) continue;
            mem_[base + j] = (uint8_t)(w.data[j / 4] >> (8 * (j % 4)));
            bytes_written_++;
        }
    }
    b.resp = std::max(b.resp, r);
    if (++b.beats_done == b.len) {
        bq_.push_back({b.resp, sat_add(cycle_, b.ready_cycle)});
        wq_.pop_front();
    }
}

void TslHbm::drive(TslAxiPins &p) {
    p.awready = awready_;
    p.wready = wready_;
    p.arready = arready_;
    p.bvalid = bvalid_;
    p.bresp = bvalid_ ? bresp_ : 0;
    p.rvalid = rvalid_;
    p.rresp = rvalid_ ? rresp_ : 0;
    p.rlast = rvalid_ && rlast_;
    memcpy(p.rdata, rdata_, sizeof rdata_);
}

void TslHbm::tick(const TslAxiPins &p) {
    unsigned words = cfg_.data_bytes / 4;
    uint64_t strb_mask = cfg_.data_bytes == 64 ? ~0ull : (1ull << cfg_.data_bytes) - 1;
    // Master valids must hold, with a stable payload, until their handshake.
    if (prev_aw_wait_ && (!p.awvalid || p.awaddr != prev_.awaddr || p.awlen != prev_.awlen ||
                          p.awsize != prev_.awsize || p.awburst != prev_.awburst))
        violation("AWVALID dropped or AW payload changed before the handshake");
    if (prev_ar_wait_ && (!p.arvalid || p.araddr != prev_.araddr || p.arlen != prev_.arlen ||
                          p.arsize != prev_.arsize || p.arburst != prev_.arburst))
        violation("ARVALID dropped or AR payload changed before the handshake");
    if (prev_w_wait_ && (!p.wvalid || memcmp(p.wdata, prev_.wdata, 4 * words) != 0 ||
                         ((p.wstrb ^ prev_.wstrb) & strb_mask) || p.wlast != prev_.wlast))
        violation("WVALID dropped or W payload changed before the handshake");

    if (p.awvalid && awready_) {
        check_ax("AW", p.awaddr, p.awlen, p.awsize, p.awburst);
        uint64_t d = take_stall(p.awaddr, (unsigned)p.awlen + 1, true);
        wq_.push_back({p.awaddr, (unsigned)p.awlen + 1, 0, d, 0, d != 0});
        outstanding_++;
        while (!wbuf_.empty() && !wq_.empty()) {
            apply_w(wbuf_.front());
            wbuf_.pop_front();
        }
    }
    if (p.wvalid && wready_) {
        WBeat w;
        memcpy(w.data, p.wdata, sizeof w.data);
        w.strb = p.wstrb & strb_mask;
        w.last = p.wlast;
        if (!wq_.empty()) apply_w(w);
        else wbuf_.push_back(w);     // W before its AW: legal, buffered
    } else if (w_reserved_) {
        tokens_ += cfg_.data_bytes;  // the offered wready was not used
    }
    w_reserved_ = false;
    if (bvalid_ && p.bready) {
        bq_.pop_front();
        outstanding_--;
        bvalid_ = false;
    }
    if (p.arvalid && arready_) {
        check_ax("AR", p.araddr, p.arlen, p.arsize, p.arburst);
        uint64_t d = take_stall(p.araddr, (unsigned)p.arlen + 1, false);
        rq_.push_back({p.araddr, (unsigned)p.arlen + 1, 0, sat_add(cycle_ + cfg_.latency, d), 0, d != 0});
        outstanding_++;
    }
    if (rvalid_ && p.rready) {
        Burst &b = rq_.front();
        bytes_read_ += cfg_.data_bytes;
        if (++b.beats_done == b.len) {
            rq_.pop_front();
            outstanding_--;
        }
        rvalid_ = false;
    }

    prev_aw_wait_ = p.awvalid && !awready_;
    prev_ar_wait_ = p.arvalid && !arready_;
    prev_w_wait_ = p.wvalid && !wready_;
    prev_ = p;
    cycle_++;
    tokens_ = std::min(token_cap_, tokens_ + cfg_.bytes_per_cycle);
    plan();
}

void TslHbm::plan() {
    unsigned db = cfg_.data_bytes;
    // Address channels: never accept more than max_outstanding bursts.
    unsigned room = outstanding_ < cfg_.max_outstanding ? cfg_.max_outstanding - outstanding_ : 0;
    if (room == 1) prefer_ar_ = !prefer_ar_;  // one slot: AW and AR take turns, so neither starves
    awready_ = room > 0 && (room > 1 || !prefer_ar_) && chance();
    arready_ = room > 0 && (room > 1 || prefer_ar_) && chance();
    // R: a beat once offered stays until its handshake.
    if (!rvalid_ && !rq_.empty() && rq_.front().ready_cycle <= cycle_ && tokens_ >= db && chance()) {
        const Burst &b = rq_.front();
        uint64_t lo = beat_addr(b, b.beats_done), base = lo & ~(uint64_t)(db - 1);
        rresp_ = beat_resp(lo, base + db, false);
        rlast_ = b.beats_done + 1 == b.len;
        memset(rdata_, 0, sizeof rdata_);
        if (rresp_ == 0)
            for (unsigned j = 0; j < db; j++) rdata_[j / 4] |= (uint32_t)mem_[base + j] << (8 * (j % 4));
        tokens_ -= db;
        rvalid_ = true;
    }
    if (!bvalid_ && !bq_.empty() && bq_.front().ready_cycle <= cycle_ && chance()) {
        bresp_ = bq_.front().resp;
        bvalid_ = true;
    }
    // W: bounded buffering of beats that arrive before their AW.
    wready_ = tokens_ >= db && (!wq_.empty() || wbuf_.size() < 256) && chance();
    if (wready_) {
        tokens_ -= db;
        w_reserved_ = true;
    }
}

bool TslHbm::idle() const {
    return rq_.empty() && wq_.empty() && bq_.empty() && wbuf_.empty() && !rvalid_ && !bvalid_ &&
           outstanding_ == 0;
}
