"""What plots hooks draw with (grader/kit/figures.py): a figure as PNG text, plot data read as
floats, and a font with Japanese glyphs for Japanese labels."""

from __future__ import annotations

import base64
import math

from grader.kit import figures


def test_a_figure_comes_back_as_base64_png() -> None:
    fig = figures.figure(2, 1)
    fig.add_subplot().plot([0, 1], [1, 0])
    assert base64.b64decode(figures.png(fig)).startswith(b"\x89PNG\r\n\x1a\n")


def test_series_reads_plot_data_as_floats_or_gives_nothing_to_plot() -> None:
    got = figures.series([1, "2.5", None, "x"])
    assert got is not None and got[:2] == [1.0, 2.5] and math.isnan(got[2]) and math.isnan(got[3])
    assert figures.series([]) is None and figures.series("1,2") is None and figures.series([None, "x"]) is None


def test_japanese_labels_get_a_font_with_their_glyphs_and_english_none() -> None:
    assert figures.style("en") == figures.plot_style("en") == {}
    ja = figures.plot_style("ja")
    assert ja["font.sans-serif"][-1] == "DejaVu Sans"
    if figures.packaged_ja_font() is not None:  # the package ships IPAexGothic
        assert ja["font.sans-serif"][0] == figures.packaged_ja_font() == "IPAexGothic"
