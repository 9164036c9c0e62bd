/* error.c -- filling maat_error. */
#include <stdarg.h>
#include <stdio.h>

#include "maat/error.h"

int maat_error_set(maat_error *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->code = code;
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

const char *maat_error_name(int code)
{
    switch (code) {
    case MAAT_OK: return "ok";
    case MAAT_EINVAL: return "invalid argument";
    case MAAT_EILLEGAL: return "illegal action";
    case MAAT_EDECODE: return "malformed message";
    case MAAT_EIO: return "i/o error";
    case MAAT_ENOMEM: return "out of memory";
    case MAAT_EFORMAT: return "bad file format";
    case MAAT_ESTATE: return "wrong state";
    case MAAT_EHOST: return "machine failure";
    default: return "unknown error";
    }
}
