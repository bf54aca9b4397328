"""nbgrader's Execute, with a seed for the hidden tests and a cap on what one cell may send."""
import asyncio
import json
import os
import secrets
import time

import nbformat
from attn_course.probes import MIME, SEED_ENV
from nbgrader.preprocessors import Execute
from traitlets import Integer

from ..kernel_env import kernel_env

SANDBOXED_KERNEL = "attn-course-forked"  # forkserver.KERNEL_NAME (not imported: it would load the fork server)


class GuardedExecute(Execute):
    """Run the notebook in a kernel, as nbgrader does, and also:

    - draw a fresh seed for this notebook's hidden tests and hand it to the kernel
      (SEED_ENV); DecideHiddenTests draws the same inputs from it after the kernel stops.
      Knowing the seed does not help a learner: the inputs are no secret, the reference is.
    - start the kernel with an allowlist of the environment (kernel_env.py), not all of it;
    - cap the output of one cell: a `while True: print(...)` would otherwise pile gigabytes
      into the grader's memory before the cell timeout. Past the cap the rest is dropped,
      the kernel is interrupted (the cell then fails) and a note says why. The results
      bundles of a cell share a cap of their own: they carry the hidden tests' tensors, and a
      grade cell with two hidden tests sends two (lesson 6's pasted module: a wrong weights
      tensor made the second one over 1 MB on some seeds, and only the first was spared).
    """

    max_output_bytes = Integer(1 << 20).tag(config=True)
    # After a cell's reply, nbclient waits this long for the rest of its output. A flooded cell can leave
    # megabytes queued behind the interrupt; on a loaded machine draining them took more than nbclient's
    # 4 s, and the whole notebook failed with a timeout instead of that one cell.
    iopub_timeout = Integer(30).tag(config=True)
    max_results_bytes = Integer(16 << 20).tag(config=True)

    def preprocess(self, nb, resources=None, km=None):
        if self.kernel_name != SANDBOXED_KERNEL:
            # Plain `nbgrader autograde` (formgrader's button too): verdicts are still decided outside
            # the kernel, but the kernel can read what the grader's user can read.
            self.log.warning("kernel %r has no sandbox: it can read other learners' files; "
                             "grade with `make autograde` for a sandbox per kernel", self.kernel_name)
        # Per notebook: one instance may grade a whole class.
        self._bundles, self._output_bytes, self._interrupted = {}, {}, {}
        seed = secrets.randbits(63)
        resources.setdefault("attn_grading", {})["seed"] = seed
        saved = os.environ.get(SEED_ENV)
        os.environ[SEED_ENV] = str(seed)  # the kernel starts inside preprocess and copies the environment
        try:
            return super().preprocess(nb, resources, km=km)
        finally:
            if saved is None:
                os.environ.pop(SEED_ENV, None)
            else:
                os.environ[SEED_ENV] = saved

    async def async_start_new_kernel(self, **kwargs):
        # The kernel gets what it needs to run (the seed, locale, paths, thread counts), not the
        # grader's secrets: a learner's print(os.environ) lands in the graded notebook and feedback.
        kwargs.setdefault("env", kernel_env(os.environ))
        return await super().async_start_new_kernel(**kwargs)

    def output(self, outs, msg, display_id, cell_index):
        content = msg.get("content", {})
        size = len(content["text"]) if "text" in content else len(json.dumps(content))
        bundle = MIME in content.get("data", {})
        if bundle and self._bundles.get(cell_index, 0) + size <= self.max_results_bytes:
            self._bundles[cell_index] = self._bundles.get(cell_index, 0) + size
            return super().output(outs, msg, display_id, cell_index)
        used = self._output_bytes
        used[cell_index] = used.get(cell_index, 0) + size
        if used[cell_index] <= self.max_output_bytes:
            return super().output(outs, msg, display_id, cell_index)
        if used[cell_index] - size <= self.max_output_bytes:
            # What was cut, so that a run graded 0 for it can be told apart from a print loop afterwards.
            what = f"a results bundle of {size} bytes" if bundle else f"{msg.get('msg_type', 'output')} {size} bytes"
            outs.append(nbformat.v4.new_output(
                "stream", name="stderr", text=f"\n[output over {self.max_output_bytes} bytes: cut off at {what}]\n"))
        # Interrupt at once, and again each second while the flood goes on: on a loaded machine an
        # interrupt can land where the kernel does not act on it, and the cell would run to its timeout.
        now = time.monotonic()
        if now - self._interrupted.get(cell_index, -1.0) >= 1.0:
            self._interrupted[cell_index] = now
            asyncio.ensure_future(self.km.interrupt_kernel())
        return None
