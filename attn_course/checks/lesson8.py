"""Lesson 8's visible checks, as a notebook calls them (course.checks.lesson8.check_…) and the grader reads their
variants (lesson8.…_variants). Each part lives in the module named for what it checks, all below this one:
lesson8_mods (FlexAttention's mask_mod and score_mod, exercises 1 to 3), lesson8_caches (a rolling cache,
StreamingLLM's kept first tokens, a preallocated cache: exercises 4, 5 and 9), lesson8_sink (gpt-oss's learned sink,
exercises 6 and 15), lesson8_mla (multi-head latent attention, exercises 7 and 8), lesson8_paged (a paged cache,
attention read page by page, what a cache costs: exercises 10, 13 and 12), lesson8_lengths (rows of different lengths
in one cache, exercise 14), lesson8_packing (packed sequences, exercise 11), lesson8_softcap (Gemma 2's softcap as a
score_mod, exercise 16); what they share is in lesson8_common, and FlexAttention as the course runs it in flex.
Exercises 1 to 6, 15 and 16 are checked by their procedures (attn_course.probes.lesson8) in lesson8_visible, with the
classic mistakes these modules hold.
The checks of exercises 7 to 14 are their procedures on a seed of the check's own, in lesson8_memory.
"""
from __future__ import annotations

# The names a notebook, the probes and the grader reach as lesson8.…
from .flex import FLEX_WARNING, create_mask, flex, quiet_flex  # noqa: F401
from .lesson8_common import (  # noqa: F401
    all_nan, as_named, attend, cache_pair_swapped, control_flow_error, first_call_hint, grid, hint_text, length_error,
    matched_so_far, shape_error, unmerged,
)
from .lesson8_mods import cache_variants, padding_variants, window_variants  # noqa: F401
from .lesson8_caches import (  # noqa: F401
    CacheHost, STATIC_BUGS, STREAM_BUGS, buffers_hint, first_turned, gpt2_qkv, ring_replaced, ring_shape_hint,
    rolling_bug, rolling_error, rolling_run, static_error, static_run, stream_length_hint, streaming_error,
    streaming_run,
)
from .lesson8_mla import (  # noqa: F401
    ABSORBED_BUGS, MLAHost, SpanWatch, absorbed_run, decode_error, expands_heads, latent_shape_hint, mla_error,
    mla_parts, mla_qkv, mla_run, mla_variants,
)
from .lesson8_paged import (  # noqa: F401
    BYTES_BUGS, PAGED_GATHER_BUGS, PAGED_WRITE_BUGS, bytes_error, bytes_hint, cache_bytes_ref, paged_decode_bug,
    paged_decode_error, paged_decode_variants, paged_error, paged_gather_ref, paged_length_hint, paged_written,
    watch_finding, watched_decode,
)
from .lesson8_lengths import (  # noqa: F401
    batched_bug, batched_error, batched_inputs, batched_run, batched_variants, cache_bug, grad_run,
    meta_finding, meta_run, right_step, step_finding, write_rows,
)
from .lesson8_packing import (  # noqa: F401
    document_rules, document_variants, packed_error, positions_hint, positions_kind, positions_variants,
)
from .lesson8_memory import (  # noqa: F401
    check_attend_preallocated, check_cache_bytes, check_decode_batched, check_mla, check_mla_decode, check_packed,
    check_paged_cache, check_paged_decode,
)
from .lesson8_softcap import softcap_variants  # noqa: F401
from .lesson8_sink import flex_sink_variants, mask_of, sink_variants  # noqa: F401
from .lesson8_visible import (  # noqa: F401
    check_alibi_score_mod, check_attend_rolling, check_attend_streaming, check_flex_sink_attention, check_mask_mods,
    check_sink_attention, check_sliding_window_mod, check_softcap_score_mod,
)
