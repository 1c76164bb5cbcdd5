/* Kill points for save tests: an LD_PRELOAD library that counts every
 * state-changing file call a process makes through libc (Python's os
 * module, h5py/libhdf5 and TensorFlow's C++ file system alike, on every
 * thread) and SIGKILLs the process just before the N-th one.
 *
 * Counted: rename, renameat, renameat2, link, linkat, symlink, unlink,
 * unlinkat, rmdir, mkdir, truncate, ftruncate, and open/openat/fopen
 * calls that create or truncate. Nothing is counted until the test arms
 * the library from Python:
 *
 *     lib = ctypes.CDLL(None)
 *     lib.kill_points_arm(n, log_fd)   # n = 0: count and log, never kill
 *
 * Each counted call is logged to log_fd as "<index> <call> <path>\n"
 * (before it runs), so a test can see what a save does to the disk.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static volatile int armed = 0;
static long kill_at = 0;
static int log_fd = -1;
static long counter = 0;

void kill_points_arm(long n, int fd) {
    kill_at = n;
    log_fd = fd;
    __atomic_store_n(&counter, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&armed, 1, __ATOMIC_SEQ_CST);
}

void kill_points_disarm(void) { __atomic_store_n(&armed, 0, __ATOMIC_SEQ_CST); }

long kill_points_count(void) { return __atomic_load_n(&counter, __ATOMIC_SEQ_CST); }

static void point(const char *call, const char *path) {
    if (!__atomic_load_n(&armed, __ATOMIC_SEQ_CST)) return;
    long index = __atomic_add_fetch(&counter, 1, __ATOMIC_SEQ_CST);
    if (log_fd >= 0) {
        char line[4200];
        int size = snprintf(line, sizeof line, "%ld %s %s\n", index, call, path ? path : "-");
        if (size > 0) {
            ssize_t ignored = write(log_fd, line, size < (int)sizeof line ? (size_t)size : sizeof line - 1);
            (void)ignored;
        }
    }
    if (kill_at > 0 && index == kill_at) kill(getpid(), SIGKILL);
}

#define REAL(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

int rename(const char *a, const char *b) { point("rename", b); return REAL(rename)(a, b); }
int renameat(int fa, const char *a, int fb, const char *b) { point("renameat", b); return REAL(renameat)(fa, a, fb, b); }
int renameat2(int fa, const char *a, int fb, const char *b, unsigned int flags) {
    point("renameat2", b);
    return REAL(renameat2)(fa, a, fb, b, flags);
}
int link(const char *a, const char *b) { point("link", b); return REAL(link)(a, b); }
int linkat(int fa, const char *a, int fb, const char *b, int flags) { point("linkat", b); return REAL(linkat)(fa, a, fb, b, flags); }
int symlink(const char *a, const char *b) { point("symlink", b); return REAL(symlink)(a, b); }
int unlink(const char *p) { point("unlink", p); return REAL(unlink)(p); }
int unlinkat(int fd, const char *p, int flags) { point("unlinkat", p); return REAL(unlinkat)(fd, p, flags); }
int rmdir(const char *p) { point("rmdir", p); return REAL(rmdir)(p); }
int mkdir(const char *p, mode_t mode) { point("mkdir", p); return REAL(mkdir)(p, mode); }
int truncate(const char *p, off_t size) { point("truncate", p); return REAL(truncate)(p, size); }
int ftruncate(int fd, off_t size) { point("ftruncate", "-"); return REAL(ftruncate)(fd, size); }

static int changes(int flags) { return (flags & (O_CREAT | O_TRUNC)) != 0; }

static mode_t mode_of(int flags, va_list args) {
    return (flags & (O_CREAT | __O_TMPFILE)) ? (mode_t)va_arg(args, int) : 0;
}

int open(const char *p, int flags, ...) {
    va_list args; va_start(args, flags); mode_t mode = mode_of(flags, args); va_end(args);
    if (changes(flags)) point("open", p);
    return REAL(open)(p, flags, mode);
}
int open64(const char *p, int flags, ...) {
    va_list args; va_start(args, flags); mode_t mode = mode_of(flags, args); va_end(args);
    if (changes(flags)) point("open", p);
    return REAL(open64)(p, flags, mode);
}
int openat(int fd, const char *p, int flags, ...) {
    va_list args; va_start(args, flags); mode_t mode = mode_of(flags, args); va_end(args);
    if (changes(flags)) point("openat", p);
    return REAL(openat)(fd, p, flags, mode);
}
int openat64(int fd, const char *p, int flags, ...) {
    va_list args; va_start(args, flags); mode_t mode = mode_of(flags, args); va_end(args);
    if (changes(flags)) point("openat", p);
    return REAL(openat64)(fd, p, flags, mode);
}
FILE *fopen(const char *p, const char *mode) {
    if (strpbrk(mode, "wa+")) point("fopen", p);
    return REAL(fopen)(p, mode);
}
FILE *fopen64(const char *p, const char *mode) {
    if (strpbrk(mode, "wa+")) point("fopen", p);
    return REAL(fopen64)(p, mode);
}
