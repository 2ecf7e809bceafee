// SPDX-License-Identifier: GPL-2.0
/*
 * Print what the memory-model prctls do on this kernel and CPU, as one
 * line the harness compares with the cell's row of tests/expect.tsv:
 *
 *   mem-model-probe: get=R set_tso=R get_after=R set_default=R
 *
 * R is the return value, or the errno name when the call failed.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

#include "mem-model.h"


static const char *call(char *buf, size_t len, int op, unsigned long arg)
{
	int ret = prctl(op, arg, 0, 0, 0);

	if (ret < 0)
		snprintf(buf, len, "%s", errno == EINVAL ? "EINVAL" : strerror(errno));
	else
		snprintf(buf, len, "%d", ret);
	return buf;
}

int main(void)
{
	char a[32], b[32], c[32], d[32];

	/* In this order: each call sees the state the one before left. */
	call(a, sizeof(a), PR_GET_MEM_MODEL, 0);
	call(b, sizeof(b), PR_SET_MEM_MODEL, PR_SET_MEM_MODEL_TSO);
	call(c, sizeof(c), PR_GET_MEM_MODEL, 0);
	call(d, sizeof(d), PR_SET_MEM_MODEL, PR_SET_MEM_MODEL_DEFAULT);
	printf("mem-model-probe: get=%s set_tso=%s get_after=%s set_default=%s\n",
	       a, b, c, d);
	return 0;
}
