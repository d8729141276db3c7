/* tool.h: the commands of the `ndx` tool that live in files of their own. */
#ifndef NDX_TOOL_H
#define NDX_TOOL_H

/* `ndx devices`: lists OpenCL platforms and devices. Returns an exit code. */
int tool_devices(void);

/* The device part of `ndx demo`: real copies on the default OpenCL device,
 * each verified against the host, with the achieved GB/s. Returns an exit code. */
int tool_demo_device(void);

#endif /* NDX_TOOL_H */
