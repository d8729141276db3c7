/* ndx_api.h: NDX_API, the mark of every function the ndx libraries export.
 *
 * The libraries are built with -fvisibility=hidden: a function is part of the
 * ABI iff its declaration in a public header carries NDX_API, and nothing
 * else the libraries define is visible to a program or another library. */
#ifndef NDX_API_H
#define NDX_API_H

#if defined(__GNUC__) || defined(__clang__)
#define NDX_API __attribute__((visibility("default")))
#else
#define NDX_API
#endif

#endif /* NDX_API_H */
