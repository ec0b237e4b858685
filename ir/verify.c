/* The verifier (docs/language.md section 6).  Placeholder: accepts every
 * module until the real verifier lands. */
#include "ir/nodes.h"

int stir_kernel_verify(stir_kernel *k)
{
	(void)k;
	return 0;
}

int stir_module_verify(stir_module *m)
{
	for (int i = 0; i < m->kernels.n; i++)
		if (stir_kernel_verify(stir_kernel_at(&m->kernels, i)) < 0)
			return -1;
	return 0;
}
