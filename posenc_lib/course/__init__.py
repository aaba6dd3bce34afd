"""posenc_lib.course: the code only the book's chapters use.

The reusable library (``posenc_lib`` and its modules: encodings, layouts, fast tables and their
bounds, the kernel and its special functions, decay forms, high precision, conventions, rotary
scaling, the torch position modules) is strict: every public argument is checked and fuzzed.
This subpackage holds what a chapter needs to teach and a user of the library does not: the
notebook helpers (:mod:`~posenc_lib.course.notebook`), naive position codes
(:mod:`~posenc_lib.course.naive`), shift-invariance and Toeplitz diagnostics
(:mod:`~posenc_lib.course.shift_invariance`), autograd Hessians (:mod:`~posenc_lib.course.hessian`),
toy attention functions (:mod:`~posenc_lib.course.attention`), diagonal dominance
(:mod:`~posenc_lib.course.dominance`), power spectra (:mod:`~posenc_lib.course.spectrum`), the
shipped MiniLM data (:mod:`~posenc_lib.course.pretrained`), the small transformer
(:mod:`~posenc_lib.course.transformer`), the experiment runner
(:mod:`~posenc_lib.course.experiments`), chapter 10's experiment beyond the training length
(:mod:`~posenc_lib.course.length_experiments`) and the interactive explorers
(:mod:`~posenc_lib.course.explorers`: HTML and JavaScript, with uPlot in ``assets/``). It is
readable first: plain argument checks where a learner could pass something wrong, light unit
tests, and the chapters as its main test.

The layers: ``posenc_lib.course`` may import the library; the library never imports
``posenc_lib.course`` (``tests/lib/test_package.py`` checks it). Nothing is imported here: import a
module by name (``from posenc_lib.course import hessian as hs``).
"""

__all__: list[str] = []
