// Verilator's error and output hooks for every build of the Verilated SoC: mk/soc.mk passes this
// file with -include to each C++ file of the build, the Verilator runtime (verilated.cpp) included.
//
// Verilator 5.006's own hooks end the process: a failed assertion (the VL_WRITEF of its message,
// then VL_STOP_MT, for $error and $fatal alike) reaches vl_stop, which calls vl_fatal, which calls
// abort(); a second $finish calls exit(). Those would take down whatever links the SoC (libtessel's
// sim backend runs inside the caller's process). With VL_USER_STOP, VL_USER_FATAL and VL_USER_FINISH
// the runtime leaves them to tsl_soc_sim.cpp, which records the stop for the TslSocSim being
// clocked (TslSocSim::failed) and returns, or, for a fatal error (after which Verilator's code may
// not go on: a region that does not converge would loop), throws out of the evaluation. Everything
// the runtime prints (an assertion's message, $display) goes through tsl_soc_vl_printf, which keeps
// it for TslSocSim::failure() and echoes it to TslSocSim::set_verilator_output (stdout by default).
#ifndef TSL_SOC_VL_H
#define TSL_SOC_VL_H

#include <cstdarg>

#define VL_USER_STOP
#define VL_USER_FATAL
#define VL_USER_FINISH
#define VL_PRINTF tsl_soc_vl_printf
#define VL_VPRINTF tsl_soc_vl_vprintf

int tsl_soc_vl_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int tsl_soc_vl_vprintf(const char *fmt, va_list ap);

#endif  // TSL_SOC_VL_H
