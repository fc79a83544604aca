#version 450
// empty: does nothing; for dispatch-count stress tests.
layout(local_size_x = 1) in;

void main()
{
}
