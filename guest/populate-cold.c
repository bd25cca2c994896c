// SPDX-License-Identifier: GPL-2.0
/*
 * populate-cold <way>: map one 2 MiB folio one way (a write fault, or a
 * populate: MADV_POPULATE_WRITE, mlock(), MAP_POPULATE, fallocate() on a
 * hugetlb memfd), for guest/init's populate_cold check, which counts the
 * kernel's cold and cached clears around it. Exit 1 if the way failed.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SZ (2UL << 20)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#ifndef MFD_HUGETLB
#define MFD_HUGETLB 4U
#endif

static char *thp_area(void)
{
	char *p = mmap(NULL, 2 * SZ, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	p = (char *)(((uintptr_t)p + SZ - 1) & ~(SZ - 1));
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
	int fd;

	if (!strcmp(w, "thp-fault")) {
		p = thp_area();
		if (p)
			p[0] = 1;
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
		if (p)
			p[0] = 1;
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
	} else {
		fprintf(stderr, "usage: populate-cold thp-fault|thp-madvise|thp-mlock|"
			"hugetlb-fault|hugetlb-madvise|hugetlb-map-populate|hugetlb-fallocate\n");
		return 2;
	}
	if (!p) {
		perror(w);
		return 1;
	}
	return 0;
}
