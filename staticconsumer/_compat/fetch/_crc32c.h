/* CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of a v2 record batch
 * (KIP-98: from the attributes field to the batch's end). Used by _records.pyx (issue 37).
 *
 * Two implementations, the same function of the bytes:
 *   - hardware: the SSE 4.2 CRC32 instruction (x86-64), 8 bytes per instruction, picked at run
 *     time when the CPU has it (the extension is built for any x86-64, so it cannot assume it).
 *     The instruction takes 3 cycles but can start every cycle, so long inputs are cut into
 *     blocks of three equal parts whose CRCs run side by side (three independent chains), then
 *     joined: the register after part A, moved on over the length of part B (as if B were
 *     zeros: a linear map, four table lookups), XOR B's own CRC from 0; then C likewise;
 *   - software: table-driven, 8 bytes per step ("slicing by 8"), every other machine.
 * Neither touches Python objects: callers may release the GIL around them.
 */
#ifndef STATICCONSUMER_CRC32C_H
#define STATICCONSUMER_CRC32C_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define SC_CRC32C_POLY 0x82F63B78u

static uint32_t sc_crc32c_table[8][256];
static int sc_crc32c_hardware = 0;

/* The three-part blocks: parts of SC_CRC32C_LONG bytes, then of SC_CRC32C_SHORT bytes; and the
 * tables that move a register on over that many zero bytes (a byte of the register each). */
#define SC_CRC32C_LONG 8192
#define SC_CRC32C_SHORT 256
static uint32_t sc_crc32c_long[4][256];
static uint32_t sc_crc32c_short[4][256];
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
static void sc_crc32c_shift_tables(void);
#endif

static void sc_crc32c_init(void) {
    uint32_t n, crc, k;
    for (n = 0; n < 256; n++) {
        crc = n;
        for (k = 0; k < 8; k++) crc = (crc & 1) ? (crc >> 1) ^ SC_CRC32C_POLY : crc >> 1;
        sc_crc32c_table[0][n] = crc;
    }
    for (n = 0; n < 256; n++) {
        crc = sc_crc32c_table[0][n];
        for (k = 1; k < 8; k++) {
            crc = sc_crc32c_table[0][crc & 0xff] ^ (crc >> 8);
            sc_crc32c_table[k][n] = crc;
        }
    }
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    sc_crc32c_hardware = __builtin_cpu_supports("sse4.2") ? 1 : 0;
    if (sc_crc32c_hardware) sc_crc32c_shift_tables();
#endif
}

/* The register form: crc is the running value (start with 0xFFFFFFFF, invert at the end). */
static uint32_t sc_crc32c_software(uint32_t crc, const unsigned char *p, size_t n) {
    uint64_t word;
    while (n >= 8) {
        memcpy(&word, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        word = __builtin_bswap64(word);
#endif
        word ^= crc;
        crc = sc_crc32c_table[7][word & 0xff] ^ sc_crc32c_table[6][(word >> 8) & 0xff]
            ^ sc_crc32c_table[5][(word >> 16) & 0xff] ^ sc_crc32c_table[4][(word >> 24) & 0xff]
            ^ sc_crc32c_table[3][(word >> 32) & 0xff] ^ sc_crc32c_table[2][(word >> 40) & 0xff]
            ^ sc_crc32c_table[1][(word >> 48) & 0xff] ^ sc_crc32c_table[0][word >> 56];
        p += 8;
        n -= 8;
    }
    while (n--) crc = sc_crc32c_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("sse4.2")))
static uint32_t sc_crc32c_sse42_chain(uint32_t crc, const unsigned char *p, size_t n) {
    uint64_t word, crc64 = crc;
    while (n >= 8) {
        memcpy(&word, p, 8);
        crc64 = __builtin_ia32_crc32di(crc64, word);
        p += 8;
        n -= 8;
    }
    crc = (uint32_t)crc64;
    while (n--) crc = __builtin_ia32_crc32qi(crc, *p++);
    return crc;
}

/* The register moved on over a part's length of zero bytes (linear in the register: the XOR of
 * what each of its four bytes alone becomes). */
static inline uint32_t sc_crc32c_shift(uint32_t table[4][256], uint32_t crc) {
    return table[0][crc & 0xff] ^ table[1][(crc >> 8) & 0xff] ^ table[2][(crc >> 16) & 0xff]
        ^ table[3][crc >> 24];
}

__attribute__((target("sse4.2")))
static void sc_crc32c_shift_tables(void) {
    static const unsigned char zeros[SC_CRC32C_LONG];
    uint32_t k, b;
    for (k = 0; k < 4; k++) {
        for (b = 0; b < 256; b++) {
            sc_crc32c_long[k][b] = sc_crc32c_sse42_chain(b << (8 * k), zeros, SC_CRC32C_LONG);
            sc_crc32c_short[k][b] = sc_crc32c_sse42_chain(b << (8 * k), zeros, SC_CRC32C_SHORT);
        }
    }
}

/* Whole blocks of three parts of `part` bytes each, side by side; returns the register, and
 * moves *p and *n past the blocks. */
__attribute__((target("sse4.2")))
static inline uint32_t sc_crc32c_sse42_blocks(uint32_t crc, const unsigned char **p, size_t *n,
                                              size_t part, uint32_t shift[4][256]) {
    uint64_t a = crc, b, c, wa, wb, wc;
    const unsigned char *q = *p, *end;
    while (*n >= 3 * part) {
        b = c = 0;
        end = q + part;
        do {
            memcpy(&wa, q, 8);
            memcpy(&wb, q + part, 8);
            memcpy(&wc, q + 2 * part, 8);
            a = __builtin_ia32_crc32di(a, wa);
            b = __builtin_ia32_crc32di(b, wb);
            c = __builtin_ia32_crc32di(c, wc);
            q += 8;
        } while (q < end);
        a = sc_crc32c_shift(shift, (uint32_t)a) ^ (uint32_t)b;
        a = sc_crc32c_shift(shift, (uint32_t)a) ^ (uint32_t)c;
        q += 2 * part;
        *n -= 3 * part;
    }
    *p = q;
    return (uint32_t)a;
}

__attribute__((target("sse4.2")))
static uint32_t sc_crc32c_sse42(uint32_t crc, const unsigned char *p, size_t n) {
    crc = sc_crc32c_sse42_blocks(crc, &p, &n, SC_CRC32C_LONG, sc_crc32c_long);
    crc = sc_crc32c_sse42_blocks(crc, &p, &n, SC_CRC32C_SHORT, sc_crc32c_short);
    return sc_crc32c_sse42_chain(crc, p, n);
}
#else
static uint32_t sc_crc32c_sse42(uint32_t crc, const unsigned char *p, size_t n) {
    return sc_crc32c_software(crc, p, n);
}
#endif

/* The CRC-32C of n bytes at p; hardware 1: the instruction (when the CPU has it), 0: the
 * table, -1: whichever this machine runs. */
static uint32_t sc_crc32c(const unsigned char *p, size_t n, int hardware) {
    if (hardware < 0) hardware = sc_crc32c_hardware;
    if (hardware && sc_crc32c_hardware)
        return ~sc_crc32c_sse42(0xFFFFFFFFu, p, n);
    return ~sc_crc32c_software(0xFFFFFFFFu, p, n);
}

#endif
