/* error.h -- error codes plus a message the caller can show.
 *
 * Every fallible maat function returns MAAT_OK (0) or one of the codes
 * below and, when given a maat_error, fills it with the code and a
 * one-line message naming what was wrong and where (file:line, field, seat).
 */
#ifndef MAAT_ERROR_H
#define MAAT_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

enum {
    MAAT_OK = 0,
    MAAT_EINVAL = 1,   /* bad argument or option */
    MAAT_EILLEGAL = 2, /* an action the rules forbid */
    MAAT_EDECODE = 3,  /* malformed bytes or wrong types/ranges */
    MAAT_EIO = 4,      /* a file or socket failed */
    MAAT_ENOMEM = 5,
    MAAT_EFORMAT = 6,  /* a data file breaks its format */
    MAAT_ESTATE = 7,   /* a call that does not fit the current state */
    MAAT_EHOST = 8     /* the machine failed, not the caller (a sandbox that
                          could not be made): try again */
};

typedef struct maat_error {
    int code;
    char msg[256];
} maat_error;

/* Set err (if not NULL) and return code.  printf-style message. */
int maat_error_set(maat_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
const char *maat_error_name(int code);

#ifdef __cplusplus
}
#endif

#endif
