// tsl_hbm: cycle-based AXI4 slave model of HBM for Verilator harnesses (C++17, no Verilator types).
//
// One call order per clock cycle:
//   drive(p)   set the slave outputs in p from the model's state only (never from this cycle's
//              master signals), then copy them into the RTL inputs and evaluate;
//   tick(p)    with the master outputs copied into p: perform this edge's handshakes and advance
//              one cycle. Then the harness applies the rising edge.
// Reads are answered in order: the first beat `latency` cycles after the AR handshake, then at most
// one beat per cycle, limited by a token bucket of `bytes_per_cycle` shared with writes. Writes land
// at the W handshake per WSTRB; one B per burst. Addresses >= bytes answer DECERR, and inject()
// makes ranges answer SLVERR/DECERR; an erring beat reads as 0 and writes nothing. stall() holds
// the next burst touching a range (its R beats, or its B) for a delay, or until release_stalls():
// reads stay in order, so a held read also holds every later one. No fault is armed by default.
// Every AXI rule the model can see is checked; violations() lists what the master broke.
#ifndef TSL_HBM_H
#define TSL_HBM_H

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

struct TslHbmCfg {
    uint64_t bytes = 1u << 20;        // size (addresses >= bytes answer DECERR)
    unsigned data_bytes = 32;         // beat width, 4..64
    unsigned latency = 100;           // cycles from an AR handshake to its first R beat
    unsigned bytes_per_cycle = 32;    // bandwidth, shared by reads and writes (token bucket)
    unsigned max_outstanding = 32;    // bursts accepted and not yet finished (reads + writes)
    unsigned ready_percent = 100;     // random back-pressure: % of cycles a ready/valid may be offered
    uint64_t seed = 1;
};

struct TslAxiPins {                   // one cycle of AXI signals; data as little-endian 32-bit words
    // master -> slave
    bool awvalid = false; uint32_t awaddr = 0; uint8_t awlen = 0, awsize = 0, awburst = 0;
    bool wvalid = false; uint32_t wdata[16] = {}; uint64_t wstrb = 0; bool wlast = false;
    bool bready = false;
    bool arvalid = false; uint32_t araddr = 0; uint8_t arlen = 0, arsize = 0, arburst = 0;
    bool rready = false;
    // slave -> master
    bool awready = false, wready = false, bvalid = false; uint8_t bresp = 0;
    bool arready = false, rvalid = false; uint32_t rdata[16] = {}; uint8_t rresp = 0; bool rlast = false;
};

class TslHbm {
 public:
    explicit TslHbm(const TslHbmCfg &cfg);
    uint8_t *data() { return mem_.data(); }
    size_t size() const { return mem_.size(); }
    // Answer `resp` (2 SLVERR, 3 DECERR) for every read (on_write=false) or write beat touching
    // [addr, addr+len).
    void inject(uint64_t addr, uint64_t len, bool on_write, uint8_t resp);
    void clear_injections() { inj_.clear(); }
    // Hold the next burst (reads: on_write=false; writes) touching [addr, addr+len) `delay` cycles
    // longer than usual (kStallForever: until release_stalls()). One burst per call.
    static const uint64_t kStallForever = ~0ull;
    void stall(uint64_t addr, uint64_t len, bool on_write, uint64_t delay);
    // Let every held burst proceed now and disarm the stalls not yet hit.
    void release_stalls();
    unsigned stalls_hit() const { return stalls_hit_; }
    void drive(TslAxiPins &p);        // before eval: set the slave outputs from the model's state only
    void tick(const TslAxiPins &p);   // after eval, before the rising edge: handshakes, advance one cycle
    bool idle() const;                // nothing outstanding
    const std::vector<std::string> &violations() const { return viol_; }
    void clear_violations() { viol_.clear(); }
    uint64_t bytes_read() const { return bytes_read_; }
    uint64_t bytes_written() const { return bytes_written_; }
    uint64_t cycles() const { return cycle_; }
    // Configuration changes between transactions (the model must be idle).
    void set_ready_percent(unsigned pct) { cfg_.ready_percent = pct; }
    void set_latency(unsigned lat) { cfg_.latency = lat; }
    void set_bytes_per_cycle(unsigned bpc);

 private:
    struct Inj { uint64_t addr, len; bool on_write; uint8_t resp; };
    struct Stall { uint64_t addr, len; bool on_write; uint64_t delay; };
    // ready_cycle: reads, the first beat may go; writes, the extra cycles before B (a stall).
    struct Burst { uint32_t addr; unsigned len, beats_done; uint64_t ready_cycle; uint8_t resp; bool held; };
    struct BResp { uint8_t resp; uint64_t ready_cycle; };
    struct WBeat { uint32_t data[16]; uint64_t strb; bool last; };

    bool chance();
    uint8_t beat_resp(uint64_t lo, uint64_t hi, bool on_write) const;
    uint64_t beat_addr(const Burst &b, unsigned i) const;
    uint64_t take_stall(uint32_t addr, unsigned beats, bool on_write);  // extra delay, 0 if none
    void check_ax(const char *ch, uint32_t addr, uint8_t len, uint8_t size, uint8_t burst);
    void apply_w(const WBeat &w);
    void plan();                      // choose the next cycle's slave outputs
    void violation(const std::string &s);

    TslHbmCfg cfg_;
    std::vector<uint8_t> mem_;
    std::vector<Inj> inj_;
    std::vector<Stall> stalls_;
    unsigned stalls_hit_ = 0;
    std::vector<std::string> viol_;
    uint64_t rng_, cycle_ = 0, bytes_read_ = 0, bytes_written_ = 0;
    uint64_t tokens_, token_cap_;
    unsigned outstanding_ = 0;        // accepted bursts (reads + writes) not finished
    std::deque<Burst> rq_, wq_;       // reads in order; writes awaiting W beats
    std::deque<BResp> bq_;            // B responses, in order
    std::deque<WBeat> wbuf_;          // W beats that came before their AW
    // next-cycle slave outputs (planned at the end of tick)
    bool awready_ = false, wready_ = false, arready_ = false, rvalid_ = false, bvalid_ = false;
    uint32_t rdata_[16] = {};
    uint8_t rresp_ = 0, bresp_ = 0;
    bool rlast_ = false;
    bool w_reserved_ = false;         // tokens taken for a wready offer
    bool prefer_ar_ = false;  // with room for one burst, AW and AR take turns
    // previous cycle's master signals, for the stability checks
    TslAxiPins prev_{};
    bool prev_aw_wait_ = false, prev_w_wait_ = false, prev_ar_wait_ = false;
};

#endif  // TSL_HBM_H
