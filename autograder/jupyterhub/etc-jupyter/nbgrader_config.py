# Global nbgrader configuration for every account on the JupyterHub machine.
# Copy to /etc/jupyter/nbgrader_config.py. Students need only this; the grader's
# course folder adds autograder/nbgrader_config.py on top of it.
import os

c = get_config()  # noqa: F821 - provided by traitlets

c.CourseDirectory.course_id = "attention-head-by-head"
# A folder every account can reach: released assignments, submissions and feedback pass
# through it. Create it once as root: mkdir -p /srv/nbgrader/exchange && chmod 0777 it.
c.Exchange.root = os.environ.get("NBGRADER_EXCHANGE", "/srv/nbgrader/exchange")
