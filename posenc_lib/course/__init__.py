"""Chapter-only code of the book: tools that one chapter uses to teach and that a reader of the
library does not import. Here: :mod:`posenc_lib.course.explorers`, the interactive explorers of
chapters 2, 5, 8 and the training-length chapter (HTML and JavaScript, with uPlot in
``assets/``). Nothing here is imported by ``import posenc_lib``.
"""

__all__: list[str] = []
