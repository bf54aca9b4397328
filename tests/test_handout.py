"""A private term's handout (tools/handout.py, issue 42): learners get the learner notebooks and the course's
package, and nothing of the solutions, the references or the lesson sources."""
import json
import zipfile

import handout


def test_the_handout_holds_the_notebooks_and_the_package_only(tmp_path):
    url = "https://lms.example.ac.jp/files/attn_course-0.1.0-py3-none-any.whl"
    handout.main(["--out", str(tmp_path), "--package", url])
    wheels = list((tmp_path / "package").glob("attn_course-*.whl"))
    assert len(wheels) == 1
    names = zipfile.ZipFile(wheels[0]).namelist()
    assert all(n.startswith(("attn_course/", "attn_course-")) for n in names), names
    assert not [n for n in names if "reference" in n or "solution" in n or n.endswith((".md", ".ipynb"))]
    assert "attn_course/checks/lesson2.py" in names and "attn_course/probes/lesson2.py" in names
    for lang in ("ja", "ko"):
        books = sorted((tmp_path / lang).glob("*.ipynb"))
        assert len(books) == 8 and (tmp_path / lang / wheels[0].name).exists()
        for book in books:
            text = book.read_text(encoding="utf-8")
            nb = json.loads(text)
            assert "git+https" not in text   # nothing installs from the public repository
            assert "BEGIN SOLUTION" not in text and "HIDDEN TESTS" not in text
            first = "".join(next(c for c in nb["cells"] if c["cell_type"] == "code")["source"])
            assert url in first


def test_by_default_the_notebooks_install_the_wheel_beside_them(tmp_path):
    handout.main(["--out", str(tmp_path)])
    wheel = next((tmp_path / "package").glob("attn_course-*.whl")).name
    first = "".join(next(c for c in json.loads((tmp_path / "ko" / "03_masks.ipynb").read_text())["cells"]
                         if c["cell_type"] == "code")["source"])
    assert f'"{wheel}"' in first or f"'{wheel}'" in first or wheel in first
