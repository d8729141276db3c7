__kernel void ndx_probe(void) {}
