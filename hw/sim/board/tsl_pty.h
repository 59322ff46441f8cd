// A pseudo-terminal standing in for a board's serial port (hw/sim/board): the harness holds the
// master side, the host opens the slave path (`tessel ... --backend uart --port PATH`).
#ifndef TSL_PTY_H
#define TSL_PTY_H

#include <fcntl.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

// Open a raw, non-blocking pty master and print its slave path as the first line of stdout.
// Returns the master fd, or -1 after a message on stderr.
static inline int tsl_pty_open(const char *who) {
  int fd = posix_openpt(O_RDWR | O_NOCTTY);
  struct termios tio;
  if (fd < 0 || grantpt(fd) || unlockpt(fd) || tcgetattr(fd, &tio)) {
    std::fprintf(stderr, "%s: cannot create a pty: %s\n", who, std::strerror(errno));
    return -1;
  }
  cfmakeraw(&tio);
  tcsetattr(fd, TCSANOW, &tio);
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  std::printf("%s\n", ptsname(fd));
  std::fflush(stdout);
  return fd;
}

// Write all of buf to the master; false when the host went away.
static inline bool tsl_pty_write(int fd, const uint8_t *buf, size_t n) {
  size_t off = 0;
  while (off < n) {
    ssize_t r = write(fd, buf + off, n - off);
    if (r > 0) off += (size_t)r;
    else if (r < 0 && errno != EINTR && errno != EAGAIN) return false;
    else usleep(100);
  }
  return true;
}

#endif  // TSL_PTY_H
