"""Move Python warnings and progress bars on stderr to stdout in grade cells."""
import re

from nbgrader.preprocessors import NbGraderPreprocessor

# warnings.showwarning prints "path.py:12: SomeWarning: text", maybe more lines of text,
# then the offending source line, indented.
_WARNING_HEADER = re.compile(r"^\S.*:\d+: \w*Warning: ")
# tqdm's bar ("label:  60%|██████    | 3/5 [00:00<00:00,  3.76it/s]"), its cursor moves and blank redraws: a bar an
# earlier cell left open (a demonstration that raised) is redrawn when it is collected, in whatever cell runs then.
_PROGRESS = re.compile(r"\d+%\|.*\|\s*\d+/\d+\s*\[")
_BLANK = re.compile(r"^(\s|\x1b\[[0-9;]*[A-Za-z])*$")


def only_progress(text: str) -> bool:
    """True when text is nothing but progress bars being drawn (or the blank line that closes one)."""
    return all(_PROGRESS.search(p) or _BLANK.match(p) for p in re.split(r"[\r\n]", text))


def only_warnings(text: str) -> bool:
    """True when every line of text belongs to a printed Python warning."""
    lines = [line for line in text.splitlines() if line.strip()]
    in_warning = False
    for line in lines:
        if _WARNING_HEADER.match(line):
            in_warning = True
        elif not in_warning:
            return False
        elif line[:1] in (" ", "\t"):
            in_warning = False  # the source line closes this warning
    return bool(lines)


class ForgiveWarnings(NbGraderPreprocessor):
    """nbgrader gives zero to a grade cell with any stderr output, so a harmless UserWarning
    (from torch, say) or a progress bar would zero a correct answer. Only text made entirely of warnings
    or of progress bars moves; any other stderr text still counts as failure.
    """

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code" or not cell.metadata.get("nbgrader", {}).get("grade"):
            return cell, resources
        for output in cell.outputs:
            if output.output_type == "stream" and output.name == "stderr" and (only_warnings(output.text)
                                                                          or only_progress(output.text)):
                output.name = "stdout"
        return cell, resources
