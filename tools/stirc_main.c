/* stirc's main(): the command line is tools/stirc.c's stirc_main(). */
#include "tools/stirc.h"

/* argc, argv: the command line. */
int main(int argc, char **argv)
{
	return stirc_main(argc, argv);
}
