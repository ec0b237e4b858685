/* The stirc command line as a function, so that a harness can run it in
 * process (tests/fuzz/fuzz_stirc.c); tools/stirc_main.c is the program.
 */
#ifndef STIR_TOOLS_STIRC_H
#define STIR_TOOLS_STIRC_H

/* argc, argv: a command line as main() gets it (argv[0] the program; the
 * strings may be changed).  Runs it and returns the exit status: 0
 * success, 1 the program or the data is wrong, 2 bad usage.  Never exits.
 * Options are parsed with getopt_long: a caller that runs it more than
 * once resets getopt first (optind = 0 with glibc). */
int stirc_main(int argc, char **argv);

#endif
