/* The libtessel subcommands of the `tessel` CLI (host_driver/tools/tessel_main.cpp dispatches to them).
 *   tessel gemm --a A.npy --b B.npy [options]     C = epilogue(A x B) on a device
 *   tessel conv2d --x X.npy --w W.npy [options]   Y = epilogue(conv2d(X, W)), NHWC X, HWIO W
 *   tessel pool2d --x X.npy --kind max|avg --window K [options]   max or average pooling of X
 *   tessel softmax|layernorm|rmsnorm|gelu|silu --x X.npy [options]  a function of each row of X
 *   tessel attention --q Q.npy --k K.npy --v V.npy [options]      softmax(Q K^T * scale + mask) V
 *   tessel info [--backend model|sim] [--json]    the device's configuration
 * argv[0] is the subcommand name. Returns the process exit code: 0 success, 1 a device or library
 * failure (including a --check mismatch), 2 a usage or input error (unknown option, unreadable or
 * malformed .npy, unsupported dtype, mismatched shapes, a window that does not fit). Every error is one
 * line on stderr that starts with "tessel: ".
 */
#ifndef TESSEL_CLI_H
#define TESSEL_CLI_H

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when `sub` is a subcommand tessel_cli_main handles. */
int tessel_cli_handles(const char *sub);
int tessel_cli_main(int argc, char **argv);
/* The usage text of the subcommands (for `tessel --help`). */
extern const char tessel_cli_usage[];

#ifdef __cplusplus
}
#endif

#endif /* TESSEL_CLI_H */
