"""Lesson 8's planted bugs live in tools/planted/lesson8.py; this name stays importable for code written against it."""
from planted.lesson8 import BUGS  # noqa: F401
