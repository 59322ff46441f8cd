/* Opening a file the user names as an input (a firmware ELF, a .npy operand).
 *
 * One rule for every input file: it is opened without blocking (O_NONBLOCK: a FIFO with no writer
 * must not hang the caller) and refused unless it is a regular file (a directory, a FIFO, a socket,
 * /dev/zero or a terminal are refused before a byte is read). Defined here, static, so that each of
 * the programs that link the ELF loader or the .npy reader alone (the tools, the fuzzers, the
 * simulators) gets it without another object. Never prints, never aborts.
 */
#ifndef TESSEL_FILE_H
#define TESSEL_FILE_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Open `path` for reading: a descriptor of a regular file and its size in *size, or -1 with the
 * reason in *why ("is a FIFO, a device or a socket, not a regular file"; strerror for a path that
 * cannot be opened). The caller closes the descriptor. */
static inline int tessel_file_open(const char *path, uint64_t *size, const char **why)
{
    *size = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        *why = strerror(errno);
        return -1;
    }
    struct stat st;
    *why = NULL;
    if (fstat(fd, &st) != 0)
        *why = strerror(errno);
    else if (S_ISDIR(st.st_mode))
        *why = "is a directory, not a file";
    else if (!S_ISREG(st.st_mode))
        *why = "is not a regular file (a FIFO, a device or a socket), refused without reading it";
    if (*why) {
        close(fd);
        return -1;
    }
    *size = (uint64_t)st.st_size;
    return fd;
}

#endif /* TESSEL_FILE_H */
