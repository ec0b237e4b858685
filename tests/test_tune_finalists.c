/* The tuner's finalists (codegen/tune_finalists.h), on the host: which
 * timed candidates are finalists (within STIR_TUNE_FINALIST_MARGIN of the
 * fastest, the screening's drops left out, the fastest first, at most
 * STIR_TUNE_FINALISTS), and which wins the rounds (the least median over
 * the rounds, not the least single time). */
#include <stdbool.h>
#include <stdlib.h>
#include <stir/stir.h>
#include <stir/tune.h>
#include "codegen/tune_finalists.h"
#include "tests/testutil.h"

START_TEST(test_finalists_margin_and_order)
{
	/* 1.00 the fastest; 1.02 and 1.03 within 3%, 1.04 not; 0.90 was
	 * dropped by the screening (its time is the screening's) */
	double ms[] = { 1.02, 1.04, 1.00, 0.90, 1.03, 1.02 };
	bool dropped[] = { false, false, false, true, false, false };
	int idx[STIR_TUNE_FINALISTS];
	ck_assert_int_eq(tune_get_finalists(6, ms, dropped, idx), 4);
	/* the fastest first; equal times in the search's order */
	ck_assert_int_eq(idx[0], 2);
	ck_assert_int_eq(idx[1], 0);
	ck_assert_int_eq(idx[2], 5);
	ck_assert_int_eq(idx[3], 4);
}
END_TEST

START_TEST(test_finalists_at_most)
{
	/* seven within the margin: the four fastest, whatever their order */
	double ms[] = { 1.025, 1.02, 1.015, 1.01, 1.005, 1.00, 1.001 };
	bool dropped[7] = { false };
	int idx[STIR_TUNE_FINALISTS];
	ck_assert_int_eq(STIR_TUNE_FINALISTS, 4);
	ck_assert_int_eq(tune_get_finalists(7, ms, dropped, idx), 4);
	ck_assert_int_eq(idx[0], 5);
	ck_assert_int_eq(idx[1], 6);
	ck_assert_int_eq(idx[2], 4);
	ck_assert_int_eq(idx[3], 3);
	/* one alone; none when every one was dropped */
	ck_assert_int_eq(tune_get_finalists(1, ms, dropped, idx), 1);
	ck_assert_int_eq(idx[0], 0);
	bool all[7] = { true, true, true, true, true, true, true };
	ck_assert_int_eq(tune_get_finalists(7, ms, all, idx), 0);
}
END_TEST

START_TEST(test_finalists_pick_median)
{
	/* finalist 0 was fastest in the search's round (4.50) but slower at
	 * the other addresses; finalist 1 is steady; finalist 2 has one slow
	 * round, which its median ignores */
	double ms[] = { 4.50, 4.80, 4.75,
	                4.60, 4.62, 4.61,
	                4.58, 5.20, 4.59 };
	double med[3];
	ck_assert_int_eq(STIR_TUNE_FINALIST_ROUNDS, 3);
	ck_assert_int_eq(tune_pick_finalist(3, 3, ms, med), 2);
	ck_assert(med[0] == 4.75);
	ck_assert(med[1] == 4.61);
	ck_assert(med[2] == 4.59);
	/* equal medians: the first (the search's fastest) */
	double tie[] = { 1.0, 2.0, 1.5, 1.5, 1.5, 0.5 };
	ck_assert_int_eq(tune_pick_finalist(2, 3, tie, med), 0);
	/* two rounds: the mean of the two */
	double two[] = { 1.0, 3.0, 1.9, 2.0 };
	ck_assert_int_eq(tune_pick_finalist(2, 2, two, med), 1);
	ck_assert(med[0] == 2.0 && med[1] == 1.95);
}
END_TEST

static Suite *finalists_suite(void)
{
	Suite *s = suite_create("tune_finalists");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_finalists_margin_and_order);
	tcase_add_test(tc, test_finalists_at_most);
	tcase_add_test(tc, test_finalists_pick_median);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run_suite(finalists_suite());
}
