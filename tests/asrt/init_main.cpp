// Elaborates one module (Verilated with --prefix Vtop) and evaluates it once: a parameter check
// (`TSL_ASSERT_INIT) fires at time 0 when the build's parameters are out of range. Exits 0 if none did.
#include <cstdio>

#include "Vtop.h"
#include "verilated.h"

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    Vtop top;
    top.eval();
    printf("init_asrt: elaborated and evaluated\n");
    return 0;
}
