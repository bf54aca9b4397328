# JupyterHub for a class taking "Attention, head by head", graded with nbgrader's exchange.
# Copy to /etc/jupyterhub/jupyterhub_config.py and start `jupyterhub -f` it as root.
# Modelled on nbgrader's own demo "one class, multiple graders" (nbgrader/demos/).
#
# Accounts (create them as Unix users first, see README "Many learners: JupyterHub"):
#   grader-attention  owns the course folder (a checkout of this repository) and runs
#                     the formgrader as a JupyterHub service;
#   instructors       listed in INSTRUCTORS, reach that service through the hub;
#   students          everyone in STUDENTS, each with their own single-user server.
import os

c = get_config()  # noqa: F821 - provided by JupyterHub

COURSE = "attention-head-by-head"          # = CourseDirectory.course_id in autograder/nbgrader_config.py
GRADER = "grader-attention"
INSTRUCTORS = ["instructor1"]
ROSTER = os.environ.get("ATTN_STUDENTS", "/etc/jupyterhub/students.txt")  # one user name per line
STUDENTS = []
if os.path.exists(ROSTER):
    with open(ROSTER, encoding="utf-8") as roster:
        STUDENTS = [name.strip() for name in roster if name.strip() and not name.startswith("#")]

c.JupyterHub.bind_url = "http://:8000"
c.Authenticator.allowed_users = set(INSTRUCTORS + STUDENTS)
c.Authenticator.admin_users = set(INSTRUCTORS)

# nbgrader finds its graders through a group named formgrade-<course>.
c.JupyterHub.load_groups = {f"formgrade-{COURSE}": INSTRUCTORS, f"nbgrader-{COURSE}": STUDENTS}
c.JupyterHub.load_roles = [
    {
        "name": f"formgrade-{COURSE}",
        "groups": [f"formgrade-{COURSE}"],
        "scopes": [f"access:services!service={COURSE}", "list:services", f"read:services!service={COURSE}"],
    },
    {
        "name": f"nbgrader-{COURSE}",
        "groups": [f"nbgrader-{COURSE}"],
        "scopes": ["list:services", f"read:services!service={COURSE}"],
    },
    # The course list extension asks the hub which services the user may see.
    {"name": "server", "scopes": ["inherit"]},
]

# The grader's JupyterLab runs as a service named after the course; its folder is the
# checkout, so formgrader and `make autograde` use the same autograder/ course.
c.JupyterHub.services = [
    {
        "name": COURSE,
        "url": "http://127.0.0.1:9999",
        "command": ["jupyterhub-singleuser", "--ServerApp.root_dir=/home/grader-attention/attention-course"],
        "user": GRADER,
        "cwd": "/home/grader-attention/attention-course/autograder",
        "environment": {"JUPYTERHUB_DEFAULT_URL": "/lab"},
    }
]

# Students open JupyterLab; the Assignments tab lists what was released to the exchange.
c.Spawner.default_url = "/lab"
