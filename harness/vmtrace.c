// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace: when each 4 KiB page of a guest's RAM is first touched, seen from
 * the host.
 *
 *   vmtrace [-i us] FILE
 *
 * FILE is the guest's RAM as QEMU maps it (-object memory-backend-file,
 * share=on, on a tmpfs whose shmem_enabled is never: 4 KiB pages). A page
 * of it is resident once the guest (or QEMU for it) has first read or
 * written it, as a host fault makes it resident; mincore() on a read-only
 * mapping of FILE, which this program never touches, says which are. Every
 * -i microseconds (default 1000) it reads the residency of the file (each
 * 2 MiB of it that has data, SEEK_DATA says, until all its pages have been
 * seen) and
 * prints a line "<us> <page>" for each page that became resident since the
 * last poll, in ascending page order within one poll (the order inside an
 * interval is not seen: the trace's resolution is the interval). <us> is the
 * poll's time since the first, and the first poll's pages (what was resident
 * before the guest ran) have <us> 0. It stops on SIGINT or SIGTERM, after a
 * last poll; a '#' line says how many polls ran and how long the longest gap
 * between two was.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PAGE	4096UL
#define REGION	512UL	/* pages: 2 MiB */

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000ULL + ts.tv_nsec / 1000;
}

static int usage(void)
{
	fprintf(stderr, "usage: vmtrace [-i us] FILE\n");
	return 2;
}

int main(int argc, char **argv)
{
	unsigned char *vec, *seen;
	unsigned short *count;
	uint64_t t0, t, last, gap = 0, polls = 0, pages = 0;
	long interval = 1000;
	size_t n, i;
	struct stat st;
	void *map;
	int fd, c, going = 1;

	while ((c = getopt(argc, argv, "i:")) != -1) {
		switch (c) {
		case 'i': interval = atol(optarg); break;
		default: return usage();
		}
	}
	if (optind != argc - 1 || interval < 100)
		return usage();
	fd = open(argv[optind], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) || st.st_size < (off_t)PAGE) {
		fprintf(stderr, "vmtrace: %s: %s\n", argv[optind], fd < 0 ? strerror(errno) : "empty");
		return 1;
	}
	n = st.st_size / PAGE;
	map = mmap(NULL, n * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	vec = calloc(n, 1);
	seen = calloc(n, 1);
	count = calloc(n / REGION + 1, sizeof(*count));
	if (map == MAP_FAILED || !vec || !seen || !count) {
		fprintf(stderr, "vmtrace: %s\n", strerror(errno));
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	setvbuf(stdout, NULL, _IOFBF, 1 << 20);
	printf("# vmtrace: %s, %zu pages of 4 KiB, polled every %ld us\n", argv[optind], n, interval);
	t0 = last = now_us();
	{
		struct timespec rt;

		clock_gettime(CLOCK_REALTIME, &rt);
		printf("# vmtrace: start %ld.%06ld (CLOCK_REALTIME)\n", (long)rt.tv_sec, rt.tv_nsec / 1000);
	}
	while (going) {
		/* one poll after SIGINT or SIGTERM, then stop */
		if (stop)
			going = 0;
		t = now_us();
		/*
		 * 2 MiB at a time, leaving out those already all seen and,
		 * by SEEK_DATA, the holes: only a region with new pages
		 * costs a mincore() of its 512 pages.
		 */
		for (i = 0; i < n; i += REGION) {
			size_t len = n - i < REGION ? n - i : REGION;

			if (count[i / REGION] == len)
				continue;
			if (!count[i / REGION]) {
				off_t d = lseek(fd, i * PAGE, SEEK_DATA);

				if (d < 0 || (size_t)d / PAGE >= n)
					break;		/* no data from here on */
				if ((size_t)d / PAGE >= i + len) {
					/* the next region with data */
					i = (size_t)d / PAGE / REGION * REGION - REGION;
					continue;
				}
			}
			if (mincore((char *)map + i * PAGE, len * PAGE, vec + i)) {
				fprintf(stderr, "vmtrace: mincore: %s\n", strerror(errno));
				return 1;
			}
		}
		if (polls && t - last > gap)
			gap = t - last;
		last = t;
		polls++;
		for (i = 0; i < n; i++) {
			if ((vec[i] & 1) && !seen[i]) {
				seen[i] = 1;
				pages++;
				count[i / REGION]++;
				printf("%llu %zu\n", polls == 1 ? 0ULL : (unsigned long long)(t - t0), i);
			}
		}
		if (going)
			usleep(interval);
	}
	printf("# vmtrace: %llu polls in %.1f s, longest gap %llu us, %llu pages touched\n",
	       (unsigned long long)polls, (now_us() - t0) / 1e6, (unsigned long long)gap,
	       (unsigned long long)pages);
	return 0;
}
