/* The tuner's rounds and finalists (codegen/tune_finalists.h), on the
 * host: which candidate wins the interleaved rounds (the least median
 * over the rounds, not the least single time; the screening's drops
 * never), the order of a round (the candidates of one format together),
 * and which are finalists (within STIR_TUNE_FINALIST_MARGIN of the
 * fastest, the drops left out, the fastest first, at most
 * STIR_TUNE_FINALISTS). */
#include <math.h>
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

START_TEST(test_rounds_pick_median)
{
	enum { R = STIR_TUNE_ROUNDS };
	/* candidate 0 was fastest in the first round (4.50) but slower in
	 * the others; 1 is steady; 2 has one slow round, which its median
	 * ignores; 3 was dropped by the screening (its one time, 4.00, is
	 * the screening's and cannot win) */
	double ms[4 * R] = { 4.50, 4.80, 4.75,
	                     4.60, 4.62, 4.61,
	                     4.58, 5.20, 4.59,
	                     4.00 };
	bool dropped[] = { false, false, false, true };
	double med[4];
	ck_assert_int_eq(R, 3);
	ck_assert_int_eq(tune_pick_median(4, 3, ms, dropped, med), 2);
	ck_assert(med[0] == 4.75);
	ck_assert(med[1] == 4.61);
	ck_assert(med[2] == 4.59);
	ck_assert(med[3] == 4.00);
	/* the finalists over the medians: 2 and 1 within 3%, 0 not */
	int idx[STIR_TUNE_FINALISTS];
	ck_assert_int_eq(tune_get_finalists(4, med, dropped, idx), 2);
	ck_assert_int_eq(idx[0], 2);
	ck_assert_int_eq(idx[1], 1);
	/* one round (the budget ran out in the first): its times decide */
	ck_assert_int_eq(tune_pick_median(4, 1, ms, dropped, med), 0);
	ck_assert(med[0] == 4.50 && med[3] == 4.00);
	/* two rounds: the mean of the two */
	ck_assert_int_eq(tune_pick_median(3, 2, ms, dropped, med), 1);
	ck_assert(fabs(med[0] - 4.65) < 1e-12 && fabs(med[1] - 4.61) < 1e-12);
	/* equal medians: the first; every one dropped: none */
	double tie[2 * R] = { 1.0, 2.0, 1.5, 1.5, 1.5, 0.5 };
	bool none[] = { false, false };
	ck_assert_int_eq(tune_pick_median(2, 3, tie, none, med), 0);
	bool all[] = { true, true };
	ck_assert_int_eq(tune_pick_median(2, 3, tie, all, med), -1);
}
END_TEST

START_TEST(test_rounds_order_by_inputs)
{
	/* formats A B A C B A (inputs: the first candidate of each) */
	int inputs[] = { 0, 1, 0, 3, 1, 0 };
	int order[6];
	tune_order_by_inputs(6, inputs, order);
	int want[] = { 0, 2, 5, 1, 4, 3 };
	for (int i = 0; i < 6; i++)
		ck_assert_int_eq(order[i], want[i]);
	/* all alike, all different: the search's order */
	int same[] = { 0, 0, 0 }, diff[] = { 0, 1, 2 };
	tune_order_by_inputs(3, same, order);
	ck_assert(order[0] == 0 && order[1] == 1 && order[2] == 2);
	tune_order_by_inputs(3, diff, order);
	ck_assert(order[0] == 0 && order[1] == 1 && order[2] == 2);
}
END_TEST

static Suite *finalists_suite(void)
{
	Suite *s = suite_create("tune_finalists");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_finalists_margin_and_order);
	tcase_add_test(tc, test_finalists_at_most);
	tcase_add_test(tc, test_rounds_pick_median);
	tcase_add_test(tc, test_rounds_order_by_inputs);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run_suite(finalists_suite());
}
