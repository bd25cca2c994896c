// SPDX-License-Identifier: GPL-2.0
/*
 * vm-work: the workloads of the first-touch trace's guest (guest/vm-init),
 * each using memory the way a program of its kind does, so that the host
 * sees the guest's own order of first touches.
 *
 *   vm-work heap <MiB> <MiB/s>
 *	A JVM-like heap without pre-touch: one anonymous mapping of MiB,
 *	allocated from by a bump pointer in 64 KiB objects, each written
 *	whole when allocated, at about MiB/s (nanosleep between MiBs).
 *   vm-work jobs <n> <MiB>
 *	A build-like churn: n processes, two at a time, each growing its heap
 *	with malloc() by MiB in 256 KiB pieces (written whole), then exiting:
 *	their memory goes back to the guest's allocator and is reused.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MIB (1UL << 20)

static void sleep_ns(long ns)
{
	struct timespec ts = { ns / 1000000000L, ns % 1000000000L };

	nanosleep(&ts, NULL);
}

static int heap(unsigned long mib, unsigned long rate)
{
	unsigned long obj = 64 << 10, off;
	char *p = mmap(NULL, mib * MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 1;
	for (off = 0; off < mib * MIB; off += obj) {
		memset(p + off, (int)(off >> 16) | 1, obj);
		if (rate && (off + obj) % MIB == 0)
			sleep_ns(1000000000L / rate);
	}
	printf("vm-work: heap of %lu MiB written\n", mib);
	return 0;
}

static void job(unsigned long mib)
{
	unsigned long piece = 256 << 10, i;

	for (i = 0; i < mib * MIB / piece; i++) {
		char *q = malloc(piece);

		if (!q)
			_exit(1);
		memset(q, (int)i | 1, piece);
	}
	_exit(0);
}

static int jobs(int n, unsigned long mib)
{
	int i, st, bad = 0;

	for (i = 0; i < n; i++) {
		if (i >= 2 && wait(&st) > 0 && !(WIFEXITED(st) && !WEXITSTATUS(st)))
			bad++;
		if (fork() == 0)
			job(mib);
	}
	while (wait(&st) > 0)
		if (!(WIFEXITED(st) && !WEXITSTATUS(st)))
			bad++;
	printf("vm-work: %d jobs of %lu MiB, %d failed\n", n, mib, bad);
	return bad != 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "heap"))
		return heap(strtoul(argv[2], NULL, 0), strtoul(argv[3], NULL, 0));
	if (argc == 4 && !strcmp(argv[1], "jobs"))
		return jobs(atoi(argv[2]), strtoul(argv[3], NULL, 0));
	fprintf(stderr, "usage: vm-work heap <MiB> <MiB/s> | jobs <n> <MiB>\n");
	return 2;
}
