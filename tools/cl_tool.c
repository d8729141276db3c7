#include "tool.h"
int tool_devices(void) { return 0; }
int tool_demo_device(void) { return 0; }
