"""Hugging Face's GPT-2 attention, built from a config with random weights: nothing is downloaded.

transformers 5 computes a standalone GPT2Attention without any mask (the model
around it builds the causal mask), so hf_forward passes GPT-2's causal mask as the
additive mask that GPT2Model itself would pass.
"""
import torch


def hf_attention(embed_dim: int, n_head: int, seed: int = 0, dtype=torch.float32):
    """A transformers GPT2Attention with random weights drawn from `seed`, in eval mode."""
    from transformers import GPT2Config
    from transformers.models.gpt2.modeling_gpt2 import GPT2Attention

    config = GPT2Config(n_embd=embed_dim, n_head=n_head, attn_pdrop=0.0, resid_pdrop=0.0)
    config._attn_implementation = "eager"  # a standalone module gets no implementation chosen for it
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        attention = GPT2Attention(config, layer_idx=0)
        with torch.no_grad():
            # Unit-scale activations at any width; non-zero biases, so a forgotten bias shows.
            for name, p in attention.named_parameters():
                p.normal_(0.0, 0.1 if name.endswith("bias") else embed_dim ** -0.5)
    return attention.to(dtype).eval()


def hf_forward(attention, x: torch.Tensor) -> torch.Tensor:
    """GPT2Attention's output for x (B, T, E), with GPT-2's causal mask."""
    T = x.size(1)
    keep = torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
    additive = torch.zeros(T, T, dtype=x.dtype, device=x.device).masked_fill(~keep, torch.finfo(x.dtype).min)
    return attention(x, attention_mask=additive[None, None])[0]


def llama_rotary(head_dim: int, base: float = 10000.0):
    """transformers' own Llama RoPE as a function rope(q, k, positions) -> (q, k), for q, k (…, T, D).

    LlamaRotaryEmbedding, built from a LlamaConfig (rope_theta= is read by transformers 4 and 5 alike),
    gives cos and sin for the positions; apply_rotary_pos_emb rotates. LlamaRotaryEmbedding computes the
    angles in float32 whatever q's dtype, so in float64 it agrees with an exact RoPE only to about
    1e-7 · position · |q| (float32 rounds an angle near t to about 6e-8 · t).
    """
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb

    config = LlamaConfig(hidden_size=head_dim, num_attention_heads=1, head_dim=head_dim, rope_theta=base)
    rotary = LlamaRotaryEmbedding(config)

    def rope(q, k, positions):
        cos, sin = rotary(q, positions.to(q.device)[None])        # (1, T, D) each
        cos, sin = cos[0], sin[0]                                  # (T, D): broadcast over any leading axes
        return apply_rotary_pos_emb(q, k, cos, sin, unsqueeze_dim=0)
    return rope
