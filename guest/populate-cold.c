// SPDX-License-Identifier: GPL-2.0
/*
 * populate-cold <way> [MiB]: map a region of 2 MiB folios (one by default)
 * one way (a write fault, or a populate: MADV_POPULATE_WRITE, mlock(),
 * MAP_POPULATE, fallocate() on a hugetlb memfd), in one request, for
 * guest/init's populate_cold check, which counts the kernel's cold and
 * cached clears around it. Exit 1 if the way failed.
 *
 * populate-cold fragment <MiB>: memory pressure for guest/init's
 * pressure_populate check: MiB of anonymous memory in 2 MiB blocks,
 * alternately a THP and 512 pages of which every other one is given back,
 * so that free memory is in 4 KiB pieces between movable pages and THPs;
 * prints "fragmented" and keeps it until killed.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define FOLIO (2UL << 20)
static unsigned long SZ = FOLIO;
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#ifndef MFD_HUGETLB
#define MFD_HUGETLB 4U
#endif

static char *thp_area(void)
{
	char *p = mmap(NULL, SZ + FOLIO, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	p = (char *)(((uintptr_t)p + FOLIO - 1) & ~(FOLIO - 1));
	if (madvise(p, SZ, MADV_HUGEPAGE))
		return NULL;
	return p;
}

static char *huge_area(int flags)
{
	char *p = mmap(NULL, SZ, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | flags, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

int main(int argc, char **argv)
{
	const char *w = argc > 1 ? argv[1] : "";
	char *p = NULL;
	unsigned long i, j;
	int fd;

	if (argc > 2)
		SZ = strtoul(argv[2], NULL, 0) * (1UL << 20);
	if (!SZ || SZ % FOLIO) {
		fprintf(stderr, "populate-cold: the size must be a multiple of 2 MiB\n");
		return 2;
	}

	if (!strcmp(w, "thp-fault")) {
		p = thp_area();
		for (i = 0; p && i < SZ; i += FOLIO)
			p[i] = 1;
	} else if (!strcmp(w, "thp-madvise")) {
		p = thp_area();
		if (p && madvise(p, SZ, MADV_POPULATE_WRITE))
			p = NULL;
	} else if (!strcmp(w, "thp-mlock")) {
		p = thp_area();
		if (p && mlock(p, SZ))
			p = NULL;
	} else if (!strcmp(w, "hugetlb-fault")) {
		p = huge_area(0);
		for (i = 0; p && i < SZ; i += FOLIO)
			p[i] = 1;
	} else if (!strcmp(w, "hugetlb-madvise")) {
		p = huge_area(0);
		if (p && madvise(p, SZ, MADV_POPULATE_WRITE))
			p = NULL;
	} else if (!strcmp(w, "hugetlb-map-populate")) {
		p = huge_area(MAP_POPULATE);
	} else if (!strcmp(w, "hugetlb-fallocate")) {
		fd = memfd_create("populate-cold", MFD_HUGETLB);
		if (fd >= 0 && !fallocate(fd, 0, 0, SZ))
			p = (char *)1;
	} else if (!strcmp(w, "fragment")) {
		p = thp_area();
		for (i = FOLIO; p && i < SZ; i += 2 * FOLIO)
			madvise(p + i, FOLIO, MADV_NOHUGEPAGE);
		for (i = 0; p && i < SZ; i += 4096)
			p[i] = 1;
		for (i = FOLIO; p && i < SZ; i += 2 * FOLIO)
			for (j = 0; j < FOLIO; j += 8192)
				madvise(p + i + j, 4096, MADV_DONTNEED);
		if (p) {
			puts("fragmented");
			fflush(stdout);
			pause();
		}
	} else {
		fprintf(stderr, "usage: populate-cold fragment|thp-fault|thp-madvise|thp-mlock|"
			"hugetlb-fault|hugetlb-madvise|hugetlb-map-populate|hugetlb-fallocate [MiB]\n");
		return 2;
	}
	if (!p) {
		perror(w);
		return 1;
	}
	return 0;
}
