"""The environment a learner's kernel starts with: an allowlist, not the grader's whole environment."""
from __future__ import annotations

# What a kernel needs from the grader's environment, and no more: an instructor's shell may hold tokens
# and keys (JUPYTERHUB_API_TOKEN, AWS_SECRET_ACCESS_KEY, …) that a learner's `print(os.environ)` would
# otherwise write into a graded notebook and its feedback page.
KERNEL_ENV = {"PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TERM", "TMPDIR", "VIRTUAL_ENV",
              "PYTHONPATH", "PYTHONHASHSEED", "PYTHONWARNINGS", "PYTHONIOENCODING", "PYTHONUNBUFFERED",
              "PYTHONDONTWRITEBYTECODE", "PYTHONNOUSERSITE", "PYDEVD_DISABLE_FILE_VALIDATION", "MPLBACKEND",
              "MPLCONFIGDIR", "IPYTHONDIR", "XDG_CACHE_HOME", "SOURCE_DATE_EPOCH", "NBGRADER_EXECUTION",
              "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE",
              "CUDA_VISIBLE_DEVICES", "JPY_PARENT_PID", "JPY_SESSION_NAME", "JPY_INTERRUPT_EVENT", "JUPYTER_PATH",
              "JUPYTER_RUNTIME_DIR", "JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_PLATFORM_DIRS"}
# Named one by one where a prefix would let a secret through (JPY_API_TOKEN, JUPYTER_TOKEN).
KERNEL_ENV_PREFIXES = ("LC_", "ATTN_")


def kernel_env(env) -> dict:
    """The part of env a kernel may see (KERNEL_ENV): the grading seed, thread counts, locale, paths."""
    return {k: v for k, v in env.items() if k in KERNEL_ENV or k.startswith(KERNEL_ENV_PREFIXES)}
