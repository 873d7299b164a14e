/* SPDX-License-Identifier: MIT */
/* control_http.h - `stalewin-writer serve`: the control API server
 * (libmicrohttpd).  Owned by the control-API work; the writer's main()
 * dispatches to it. */
#ifndef STALEWIN_CONTROL_HTTP_H
#define STALEWIN_CONTROL_HTTP_H

/* argv[0] is "serve".  Returns the process exit code. */
int sw_control_main(int argc, char **argv);

#endif
