/* plain_exit: no Vulkan at all; one line on stdout, one on stderr, exit status 3. */
#include <stdio.h>

int main(void)
{
	printf("plain_exit: no Vulkan here\n");
	fprintf(stderr, "plain_exit: exiting with status 3\n");
	return 3;
}
