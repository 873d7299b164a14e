/* SPDX-License-Identifier: MIT */
/* reader_clock.h - `stalewin-reader clock-serve|clock` (UDP clock
 * exchange, fallback of the VM runs when stalewin-ctl clock is absent). */
#ifndef STALEWIN_READER_CLOCK_H
#define STALEWIN_READER_CLOCK_H

/* argv[0] is "clock-serve" or "clock".  Returns the exit code. */
int sw_reader_clock_main(int argc, char **argv);

#endif
