/* skeleton */
#include <stdlib.h>

#include "internal.h"

struct pd_facts {
	int dummy;
};

int pd_facts_new(pd_facts **out)
{
	*out = calloc(1, sizeof **out);
	return *out ? 0 : PD_ENOMEM;
}

void pd_facts_free(pd_facts *f)
{
	free(f);
}
