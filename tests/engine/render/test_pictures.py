"""Pictures of the pages (engine.render.pictures, `output`): sizes at a dpi, the bound on pixels."""

from __future__ import annotations

import pytest

from engine import LimitExceeded
from engine.render.pictures import check_picture_size, picture_size


def test_a_picture_is_the_page_size_times_dpi_over_72():
    assert picture_size(595.2756, 841.8898, 150) == (1240, 1754)
    assert picture_size(612, 792, 72) == (612, 792)


def test_a_page_too_large_for_its_dpi_names_the_dpi_that_fits():
    check_picture_size(595.2756, 841.8898, 600)  # A4 at the highest dpi fits
    with pytest.raises(LimitExceeded, match="use dpi 454 or less"):
        check_picture_size(841.8898, 1190.5512, 600)  # A3
    with pytest.raises(LimitExceeded, match="use dpi 150 or less"):
        check_picture_size(14400, 100, 600)  # a long strip: bounded by its side, 30,000 px
    with pytest.raises(LimitExceeded, match="make the page smaller"):
        check_picture_size(14400, 14400, 72)
