"""gen1.py PATH: a 4096 x 4096 block-sparse matrix in Matrix Market form,
20% of its blocks of 64 stored, every block row the same count, seed 1
(write of bench/results/s21_bsr_tune_h200/gen.py)."""
import os
import sys
import numpy as np
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "s21_bsr_tune_h200"))
from gen import write

write(sys.argv[1], 4096, 4096, 64, 0.2, False, np.random.default_rng(1))
