"""Code that serves one chapter of the course and nothing else (*not* the library's core).

Each module here exists to run or illustrate a chapter: its experiments, its toy models, its
figures' helpers. The core library (:mod:`posenc_lib`) never imports from this package, so a
user of the encodings, kernels and scalings does not load it; the chapter -> module table of
:mod:`posenc_lib` names the module each chapter uses.
"""
