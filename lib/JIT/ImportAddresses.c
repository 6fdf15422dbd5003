/*===- ImportAddresses.c - Where the JIT finds an object's imports --------===*
 *
 * The addresses of the libc and libm functions a compiled object may import
 * (txc/Target/Imports.def). Written in C because C has one `exp`, where
 * C++'s <cmath> overloads it and `&exp` would need a cast per signature. The
 * compiler runtime's functions are left to the JIT's search of the
 * process's libraries.
 *
 *===----------------------------------------------------------------------===*/
#include "ImportAddresses.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct TxcImportAddress txcImportAddresses[] = {
#define TXC_LIBC_IMPORT(Name, NeededFor) {#Name, (void (*)(void))&Name},
#define TXC_LIBM_IMPORT(Name, NeededFor) {#Name, (void (*)(void))&Name},
#include "txc/Target/Imports.def"
    {NULL, NULL}};
