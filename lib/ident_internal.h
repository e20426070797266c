/*
 * ident_internal.h -- what the identification's fit and its model file
 * share.  Private to libtbfit.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TB_IDENT_INTERNAL_H
#define TB_IDENT_INTERNAL_H

#include "tbfit.h"

/* Room and names (NULL: placeholders) for a model of NU inputs, NS
 * sensors and NM modes, every estimate NaN.  0, or -1 when memory runs
 * out (the model is then for tb_ident_model_clear()). */
int ident_model_alloc(tb_ident_model *m, size_t nu, size_t ns, size_t nm,
                      const char *const *inputs, const char *const *sensors);

#endif
