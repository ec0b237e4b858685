#include "tests/testsched.h"
int main(void) { return 0; }
