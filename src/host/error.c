/* error.c: status names, the thread-local message of the last failure, and
 * the library's version. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ndx_internal.h"

#define NDX_MESSAGE_MAX 4096 /* room for an OpenCL build log's first lines */

static _Thread_local char last_message[NDX_MESSAGE_MAX];

const char *ndx_status_name(ndx_status s) {
  switch (s) {
  case NDX_OK:
    return "NDX_OK";
  case NDX_EINVAL:
    return "NDX_EINVAL";
  case NDX_ERANGE:
    return "NDX_ERANGE";
  case NDX_ENOVIEW:
    return "NDX_ENOVIEW";
  case NDX_ENOMEM:
    return "NDX_ENOMEM";
  case NDX_EDEVICE:
    return "NDX_EDEVICE";
  case NDX_EUNSUPPORTED:
    return "NDX_EUNSUPPORTED";
  }
  return "NDX_UNKNOWN";
}

const char *ndx_last_error(void) {
  return last_message;
}

ndx_status ndx_set_error(ndx_status s, const char *fmt, ...) {
  /* Formatted aside first: an argument may be ndx_last_error() itself. */
  char message[NDX_MESSAGE_MAX];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
  size_t used = n < 0 ? 0 : (size_t)n < sizeof message ? (size_t)n : sizeof message - 1;
  message[used] = '\0';
  memcpy(last_message, message, used + 1); /* the text and its NUL, not the whole buffer */
  return s;
}

unsigned ndx_version(void) {
  return NDX_VERSION_NUMBER;
}

const char *ndx_version_string(void) {
  return NDX_VERSION_STRING;
}
