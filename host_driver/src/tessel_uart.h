/* The UART bridge protocol (fpga tsl_uart_bridge <-> host `uart` transport), shared by
 * host_driver/src/transport_uart.c and the device emulator tests/uart/uart_dev_model.cpp.
 *
 * Request:  SYNC_REQ, OP, ADDR (4 bytes LE, 4-aligned), COUNT-1 (0..63), [COUNT data words LE,
 *           WRITE only], CRC-8 over OP..last data byte.
 * Response: SYNC_RSP, STATUS, [COUNT data words LE, READ with STATUS OK or BUS], CRC-8 over
 *           STATUS..last data byte.
 * OP: bits 1:0 READ/WRITE, bit 7 the BAR (0 HOSTIF registers, 1 HBM), bits 6:2 zero. A WRITE is
 * performed only after its CRC checks; accesses go in word order. A started request that sees no
 * byte for 2048 bit times is dropped (the host resynchronises by staying silent longer than that).
 */
#ifndef TESSEL_UART_H
#define TESSEL_UART_H

#include <stddef.h>
#include <stdint.h>

#define TESSEL_UART_BAUD 1000000u
#define TESSEL_UART_SYNC_REQ 0x55u
#define TESSEL_UART_SYNC_RSP 0xA5u
#define TESSEL_UART_OP_READ 1u
#define TESSEL_UART_OP_WRITE 2u
#define TESSEL_UART_OP_BAR1 0x80u
#define TESSEL_UART_MAX_WORDS 64u
#define TESSEL_UART_HDR_BYTES 7u        /* SYNC, OP, ADDR, COUNT-1 */
#define TESSEL_UART_IDLE_BITS 2048u     /* the bridge's inter-byte timeout */

typedef enum {
    TESSEL_UART_OK = 0,      /* every access performed */
    TESSEL_UART_BUS = 1,     /* some access answered err (reads as 0); the others were performed */
    TESSEL_UART_CRC = 2,     /* the request's CRC was wrong: nothing performed */
    TESSEL_UART_BADREQ = 3,  /* reserved OP bits, COUNT > 64 or unaligned ADDR: nothing performed */
} tessel_uart_status_t;

/* CRC-8, polynomial 0x07, init 0, no reflection, no final xor, continuing from crc. */
static inline uint8_t tessel_uart_crc8(uint8_t crc, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int b = 0; b < 8; b++)
            crc = (uint8_t)(crc & 0x80u ? (unsigned)(crc << 1) ^ 0x07u : (unsigned)(crc << 1));
    }
    return crc;
}

#endif /* TESSEL_UART_H */
