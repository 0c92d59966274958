"""Figure 3 never hides a system under ROVER (issue 32, friction 6): in the French demo the baseline
agrees with ROVER on every partition, and its line lay exactly under ROVER's thick black one. The
figure is drawn to pixels here and the system's colour counted along the shared line."""

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_rgb

from evaluation.render import figures

DATA = {
    "metric": "hscore",
    "keys": ["2", "1", "0"],
    "counts": {"2": 40, "1": 30, "0": 10},
    # baseline coincides with ROVER everywhere; tiny-bert-fr lies elsewhere
    "by_system": {
        "baseline": {"2": 0.8, "1": 0.5, "0": 0.2},
        "tiny-bert-fr": {"2": 0.3, "1": 0.2, "0": 0.1},
        "ROVER": {"2": 0.8, "1": 0.5, "0": 0.2},
    },
}


def pixels_of(fig, colour, tolerance=0.12):
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    rgb = np.asarray(canvas.buffer_rgba())[..., :3] / 255.0
    return int((np.abs(rgb - np.array(to_rgb(colour))).max(axis=2) < tolerance).sum())


def test_a_system_that_coincides_with_rover_is_drawn_over_it_and_visible():
    fig = figures.partitions_figure(DATA)
    baseline_colour = figures.system_style(0)["color"]
    # the legend's handle alone is a few dozen pixels: the line itself must show, hundreds of them
    assert pixels_of(fig, baseline_colour) > 400
    lines = {line.get_label(): line for line in fig.axes[0].lines}
    assert lines["baseline"].get_zorder() > lines["ROVER"].get_zorder()
    assert lines["ROVER"].get_alpha() < 1 and lines["ROVER"].get_linewidth() > lines["baseline"].get_linewidth()
    # ROVER stays in the legend, drawn as itself
    legend = fig.legends[0]
    assert [t.get_text() for t in legend.get_texts()] == ["baseline", "tiny-bert-fr", "ROVER"]


def test_the_same_figure_with_rover_on_top_hid_the_system():
    """The check above can fail: drawn as before (ROVER opaque, on top), the baseline's line is gone."""
    old = {"linewidth": 3, "color": "black", "marker": "o", "zorder": 3}
    saved = figures.ROVER_STYLE
    try:
        figures.ROVER_STYLE = old
        fig = figures.partitions_figure(DATA)
        for line in fig.axes[0].lines:
            if line.get_label() != "ROVER":
                line.set_zorder(2)
        assert pixels_of(fig, figures.system_style(0)["color"]) < 400
    finally:
        figures.ROVER_STYLE = saved
