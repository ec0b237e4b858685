#!/usr/bin/env python3
"""Write the hand-written nasty inputs of tests/fuzz/regressions/ (the
files named nasty-*).  Each is a program text that stresses one limit of
the front end or of the passes after it; test_fuzz_regressions runs them
through the fuzzer's property.  Run from the source tree:

    python3 tests/fuzz/make-nasty.py
"""
import os

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "regressions")

# A kernel with one axis I of length LEN and a tensor A over it.
def kernel(body, length="n", params="n: i32", extra=""):
    return ("kernel k(%s) {\n  axis I = dense_fixed(%s);\n"
            "  tensor A: f32[I];\n%s%s}\n" % (params, length, extra, body))

# An expression of exactly "depth" levels (docs/language.md section 7
# counts operators, calls and indices; A[i] is two levels).
def deep_expr(depth):
    e = "A[i]"
    for j in range(depth - 2):
        e = "-" + e if j % 2 else "(" + e + " + 1.0)"
    return e

def write(name, text):
    data = text.encode() if isinstance(text, str) else text
    with open(os.path.join(OUT, "nasty-" + name), "wb") as f:
        f.write(data)

def main():
    # nesting
    write("deep-parentheses.stir", kernel(
        '  iter it (i) in [I] "S" { A[i] = ' + "(" * 5000 + "1.0" +
        ")" * 5000 + "; }\n"))
    write("deep-expression.stir", kernel(
        '  iter it (i) in [I] "S" {\n    A[i] = ' + deep_expr(1000) +
        ";\n  }\n"))
    write("deep-expression-over.stir", kernel(
        '  iter it (i) in [I] "S" {\n    A[i] = ' + deep_expr(1001) +
        ";\n  }\n"))
    # the deepest blocks the scanner allows (256, the kernel's included)
    # with the deepest expression inside, run by the interpreter
    d = 256 - 2
    write("deep-if.stir", kernel(
        '  iter it (i) in [I] "S" {\n' + "if (i < 3) {\n" * d +
        "A[i] = " + deep_expr(1000) + ";\n" + "}\n" * d + "  }\n",
        length="1"))
    d = 256 - 1
    write("deep-iterations.stir", kernel(
        "".join('  iter it%d (v%d) in [I] "S" {\n' % (j, j)
                for j in range(d)) +
        "A[v0] = " + deep_expr(1000).replace("A[i]", "A[v%d]" % (d - 1)) +
        ";\n" + "}\n" * d, length="1"))
    write("deep-if-over.stir", kernel(
        '  iter it (i) in [I] "S" {\n' + "if (i < 3) {\n" * 300 +
        "A[i] = 1.0;\n" + "}\n" * 300 + "  }\n"))
    for length, name in (("n", "iter-nesting-50.stir"),
                         ("1", "iter-nesting-50-one.stir")):
        write(name, kernel(
            "".join('  iter it%d (v%d) in [I] "S" {\n' % (j, j)
                    for j in range(50)) +
            "A[v0] += 1.0;\n" + "}\n" * 50, length=length))
    # literals and sizes
    write("huge-literals.stir", kernel(
        '  iter it (i) in [I] "S" {\n    A[i] = 1e999;\n'
        "    A[i] = 99999999999999999999 + 9223372036854775808;\n  }\n"))
    write("huge-sizes.stir",
          "kernel k(n: i32, m: i64) {\n"
          "  axis I = dense_fixed(9223372036854775807);\n"
          "  axis J = dense_fixed(n * 9223372036854775807 + 1);\n"
          "  axis K = dense_fixed(-9223372036854775807 - 1);\n"
          "  axis L = sparse_variable(I, 9223372036854775807, m * m * m);\n"
          "  axis M = dense_fixed(n / (n - n));\n"
          "  tensor A: f32[I, L];\n  tensor B: f32[J, K, M];\n"
          '  iter it (i, l) in [I, L] "SR" {\n'
          "    A[i, l] = 1e308 * 10.0 + f32(9223372036854775807);\n"
          "  }\n}\n")
    write("size-overflow.stir",
          "kernel k(n: i32) {\n"
          "  axis I = dense_fixed(n * 9223372036854775807 + 1);\n"
          "  tensor A: f32[I];\n"
          '  iter it (i) in [I] "S" { A[i] = 1.0; }\n}\n')
    # bytes
    write("nul-bytes.stir",
          b"kernel k(n: i32) {\n  axis I = dense_fixed(n);\x00\n"
          b"  tensor A: f32[I];\n  // a comment \x00 with a NUL\n"
          b'  iter it (i) in [I] "S\x00" { A[i] = 1.0; }\n}\n\x00')
    write("unterminated-comment.stir",
          kernel('  iter it (i) in [I] "S" { A[i] = 1.0; }\n') +
          "/* never closed\n  kernel j() {}\n")
    write("empty.stir", "")
    # names: 10000 bytes, and the array names of two axes ("X.indptr")
    # longer than any fixed buffer
    n = "n" * 10000
    write("long-identifiers.stir", (
          "kernel K@(@: i32) {\n"
          "  axis I@ = dense_fixed(@);\n"
          "  axis J@ = sparse_variable(I@, @, @ * 2, sorted = false);\n"
          "  axis J@_ = dense_variable(I@, @, @);\n"
          "  tensor A@: f32[I@, J@];\n"
          '  iter I@ (i@, j@) in [I@, J@] "SR" {\n'
          "    A@[i@, j@] += 1.0;\n  }\n}\n").replace("@", n))
    # counts
    write("params-1000.stir", kernel(
        '  iter it (i) in [I] "S" { A[i] = f32(p999 + p0); }\n',
        length="p999 % 7",
        params=", ".join("p%d: i32" % i for i in range(1000))))

if __name__ == "__main__":
    main()
