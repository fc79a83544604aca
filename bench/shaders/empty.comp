#version 450
// empty: does nothing; measures the cost of a dispatch itself.
layout(local_size_x = 64) in;

void main()
{
}
