"""The book's figure format (posenc_lib.course.notebook.use_book_style): PNG at twice the
display resolution, shown at the size STYLE sets, recording its smallest text for the
browser check."""

from __future__ import annotations

import base64
import struct
import zlib

import pytest

from posenc_lib.course.notebook import STYLE

pytestmark = pytest.mark.slow


def png_chunks(data: bytes) -> dict[bytes, list[bytes]]:
    chunks: dict[bytes, list[bytes]] = {}
    position = 8
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        chunks.setdefault(kind, []).append(data[position + 8 : position + 8 + length])
        position += 12 + length
    return chunks


def test_a_plot_in_a_kernel_is_a_2x_png_with_its_smallest_text_recorded() -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    source = "\n".join(
        [
            "import matplotlib.pyplot as plt",
            "from posenc_lib.course.notebook import use_book_style",
            "use_book_style()",
            "fig, ax = plt.subplots()",
            "ax.plot([0, 1], [0, 1], label='line')",
            "ax.set_xlabel('position $m$')",
            "ax.annotate('small', (0.5, 0.5), fontsize=7)",
            "ax.legend()",
            "plt.show()",
        ]
    )
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source)]
    nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3").execute()
    outputs = notebook.cells[0].outputs
    (output,) = [o for o in outputs if o.output_type == "display_data"]
    assert "image/svg+xml" not in output.data
    png = base64.b64decode(output.data["image/png"])
    width, height = struct.unpack(">II", png[16:24])
    shown = output.metadata["image/png"]
    assert (shown["width"], shown["height"]) == (width // 2, height // 2)
    # bbox_inches="tight" trims the margins: about the figure size, never larger
    assert 0.8 * STYLE["figure.figsize"][0] * STYLE["figure.dpi"] <= shown["width"]
    assert shown["width"] <= 1.05 * STYLE["figure.figsize"][0] * STYLE["figure.dpi"]
    chunks = png_chunks(png)
    texts = dict(chunk.split(b"\0", 1) for chunk in chunks.get(b"tEXt", []))
    compressed = dict(chunk.split(b"\0", 1) for chunk in chunks.get(b"zTXt", []))
    texts.update({k: zlib.decompress(v[1:]) for k, v in compressed.items()})
    assert texts[b"posenc:min-text-pt"] == b"7"  # the annotation, not the style's 10
    (phys,) = chunks[b"pHYs"]
    per_metre, _, unit = struct.unpack(">IIB", phys)
    assert unit == 1 and round(per_metre * 0.0254) == 2 * STYLE["figure.dpi"]
