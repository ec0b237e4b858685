/* A sample for tests/test_lint_comments.sh: function comments, some naming
 * parameters the function does not have.  Never compiled; the lint must
 * report exactly the lines in tests/lint/stale.expected. */
#include <stddef.h>

typedef struct thing thing;

/* t, n: the parameter "n" was renamed "count": stale. */
static int count_things(const thing *t, int count)
{
	return t ? count : 0;
}

/* t, n, out: a signature over several lines; "out" was removed. */
static int many_lines(const thing *t,
	int n)
{
	return t ? n : 0;
}

/* t, k: the return type on a line of its own; "k" is stale. */
static const thing *
own_line(const thing *t)
{
	return t;
}

/* a, b, zz: one comment over two declarations (a header's group): "a"
 * and "b" are parameters of one or the other, "zz" of neither. */
int group_first(int a, int x);
int group_second(int y, int b);

/* t, cmp, grid: a function pointer and an array are parameters too. */
void sorts(thing *t, int (*cmp)(const void *, const void *), unsigned grid[3]);

/* t, n: correct. */
static int correct(const thing *t, int n)
{
	return t ? n : 0;
}

/* Note: a heading, not a list of parameters. */
static int heading(int x)
{
	return x;
}

/* name: a macro call at top level (START_TEST(name)) is not checked. */
START_TEST(name)
{
}
END_TEST

/* t, gone: a comment separated by a blank line belongs to no function. */

static int detached(int x)
{
	return x;
}

/* cb, n: a typedef of a function type is not a function. */
typedef int (*callback)(void *data, int m);

/* v: a variable initialised by a call is not a function. */
static int v = sizeof(int);

/* u, w: a declaration whose parameter "w" was renamed "ww": stale. */
void renamed_decl(int u, int ww);

/* thing, t: "thing" is the type of a parameter, not a parameter. */
static int type_name(const thing *t)
{
	return t != NULL;
}

/* cmp, data: the parameters of a function pointer parameter are not
 * the function's: "data" is stale. */
static int pointer_params(int (*cmp)(void *data))
{
	return cmp != NULL;
}
