/*===- ImportAddresses.h - Where the JIT finds an object's imports -*- C -*-===*
 *
 * Internal to TxcJIT; included by C and C++.
 *
 *===----------------------------------------------------------------------===*/
#ifndef TXC_LIB_JIT_IMPORTADDRESSES_H
#define TXC_LIB_JIT_IMPORTADDRESSES_H

#ifdef __cplusplus
extern "C" {
#endif

struct TxcImportAddress {
  const char *name;
  void (*address)(void);
};

/* The libc and libm functions of txc/Target/Imports.def and their
   addresses in this process, ended by {NULL, NULL}. */
extern const struct TxcImportAddress txcImportAddresses[];

#ifdef __cplusplus
}
#endif

#endif
