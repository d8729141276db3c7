__kernel void ndx_copy(void) {}
