"""Planted bugs of the GPT2SelfAttention that lessons 6 and 7 paste as exercise 0 (the same solution cell,
ex0_gpt2_attention): each lesson's BUGS takes them, so both grade tables show them.

Each was ✔ in the check and the grader (lesson 4's, built with the default or max_len=32 and run short), then failed
where the lesson builds the module with max_len= (lesson 6's section 3 with 1024 and sequences past 64, lesson 7's
section 1 with 16), or left the text's (max_len, max_len) buffer unmet: the GPT-2 module's checks build it with
max_len=80 and run it past 64, and the hidden lesson4.module_max_len with 70 to 90.
"""
from planted import Bug

PASTED_MAX_LEN = {
    "pasted_buffer_64": Bug("ex0_gpt2_attention", "torch.ones(max_len, max_len, dtype=torch.bool)",
                            "torch.ones(64, 64, dtype=torch.bool)", {"ex0_gpt2_attention_tests": "hint_max_len_buffer"},
                            "pasted module with a causal buffer of a fixed 64, whatever max_len"),
    "pasted_block_size_keyword": Bug("ex0_gpt2_attention", "def __init__(self, embed_dim, n_head, max_len=64, dropout=0.0):",
                                     "def __init__(self, embed_dim, n_head, block_size=64, dropout=0.0):\n"
                                     "        max_len = block_size", {"ex0_gpt2_attention_tests": "hint_max_len_keyword"},
                                     "pasted module whose keyword is block_size, not max_len"),
}
