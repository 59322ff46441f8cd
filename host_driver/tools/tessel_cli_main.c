/* tessel-cli: the libtessel subcommands of `tessel` (gemm, info) as a plain C program linked with
 * libtessel.a. build/bin/tessel runs it for those subcommands when the CLI is not linked into the
 * Verilated binary itself (hw/sim/soc/tessel_main.cpp); it can also be run directly:
 *   tessel-cli gemm ...    tessel-cli info ...
 */
#include <stdio.h>
#include <string.h>

#include "tessel_cli.h"

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        fputs(tessel_cli_usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!tessel_cli_handles(argv[1])) {
        fprintf(stderr, "tessel: unknown subcommand %s\n", argv[1]);
        return 2;
    }
    return tessel_cli_main(argc - 1, argv + 1);
}
