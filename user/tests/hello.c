// hello: the smallest Switchyard user program.  It prints a greeting and
// its arguments, then exits 0.  Built with musl (hello) and with glibc
// (hello-glibc) so both libraries' start-up paths get exercised; exec.c
// runs both and checks the first line.
#include <stdio.h>

int main(int argc, char **argv)
{
	printf("hello from switchyard\n");
	printf("argc=%d\n", argc);
	for (int i = 0; i < argc; i++)
		printf("argv[%d]=%s\n", i, argv[i]);
	return 0;
}
