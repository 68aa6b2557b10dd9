"""bench/benchmark_page.py: each benchmark's --markdown replaces its own section of
docs/benchmarks.md under a stamp of the run; the published page is made only of such sections."""

from __future__ import annotations

import dataclasses
import importlib.util
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _page_module():
    spec = importlib.util.spec_from_file_location("benchmark_page", ROOT / "bench" / "benchmark_page.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)  # dataclasses look their module up there
    spec.loader.exec_module(sys.modules[spec.name])
    return sys.modules[spec.name]


page_module = _page_module()


def _stamp(load: float, cores: int = 2):
    return dataclasses.replace(page_module.START, command="python bench/x.py --markdown", commit="abc1234",
                               uncommitted=False, cpu="Some CPU", cores=cores, load_at_start=load)


def test_a_section_is_replaced_in_place_and_the_others_kept(tmp_path):
    page = tmp_path / "benchmarks.md"
    write = page_module.write_section
    write(page, "first", "First", "what the columns mean", ["| a |", "|---|", "| 1 |"], _stamp(0.1))
    write(page, "second", "Second", "", ["| b |", "|---|", "| 2 |"], _stamp(0.1))
    write(page, "first", "First", "what the columns mean", ["| a |", "|---|", "| 3 |"], _stamp(0.1))
    text = page.read_text()
    assert text.startswith(page_module.PAGE_HEADER)
    assert text.index("## First") < text.index("## Second")  # kept its place
    assert "| 3 |" in text and "| 1 |" not in text and "| 2 |" in text
    assert text.count("<!-- bench:first begin -->") == 1 and text.count("<!-- bench:first end -->") == 1
    assert "> Written by `python bench/x.py --markdown`" in text and "Some CPU, 2 cores" in text


def test_the_stamp_says_when_the_machine_was_loaded():
    assert not _stamp(0.9).loaded and "Loaded machine" not in _stamp(0.9).markdown()
    loaded = _stamp(1.1)
    assert loaded.loaded and "**Loaded machine: more than 0.5 x 2 cores were busy" in loaded.markdown()
    assert "load average 1.10 at start" in loaded.markdown()


def test_the_published_page_is_made_of_stamped_sections_that_a_script_writes():
    text = (ROOT / "docs" / "benchmarks.md").read_text()
    sections = re.findall(r"<!-- bench:([\w-]+) begin -->(.*?)<!-- bench:\1 end -->", text, re.DOTALL)
    assert sections, "docs/benchmarks.md has no section written by a benchmark"
    outside = re.sub(r"<!-- bench:([\w-]+) begin -->.*?<!-- bench:\1 end -->", "", text, flags=re.DOTALL)
    assert outside.strip() == page_module.PAGE_HEADER.strip(), "text outside the sections: edit the scripts instead"
    scripts = {path.name: path.read_text() for path in (ROOT / "bench").glob("*.py")}
    for name, body in sections:
        stamp = re.search(r"> Written by `python bench/(\w+\.py)[^`]*--markdown[^`]*`", body)
        assert stamp, f"section {name} has no stamp"
        assert f'"{name}"' in scripts[stamp.group(1)], f"{stamp.group(1)} does not write the section {name}"
        assert re.search(r"> at commit `[0-9a-f]+`", body) and " cores; load average " in body
