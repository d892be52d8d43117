"""Nimbus-mini's one-token step on a CPU, without transformers' per-call work.

A draft step multiplies one position through 2 layers and an 8,192-row head: 1.3 to 1.5 ms of
matrix products on a 2-core AMD EPYC. Called through transformers' LlamaForCausalLM.forward,
the same step took 2.9 to 4.4 ms: the model's wrappers (argument checks, mask and output
objects, hooks) and seven separate products per layer cost as much again as the arithmetic,
and on a CPU that overhead counts in full against a draft step's budget of a tenth of a target
step.

`OneTokenStep` runs the same modules' arithmetic directly, for one new position after a cache:
the same RMS norms, rotary embedding and activation (transformers' own modules and functions),
the same KV cache (`cache.update`, so a cache can pass between this step and the model's
forward in either direction), PyTorch's attention, and fbgemm's float16 products with q, k and
v in one product and gate and up in another (the weights concatenated, so every output sums
the same terms in the same order). Its logits equal the forward's (a test holds them within
1e-5). Anything else (several positions, gradients, a GPU) goes through the forward as before.
"""
from __future__ import annotations

import torch
from torch.nn import functional as F
from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

from .cpu_linear import HALF_PRODUCTS, CPULinear

_product = torch.ops.quantized.linear_dynamic_fp16 if HALF_PRODUCTS else None


def _half_pack(*layers: CPULinear):
    """fbgemm's float16 copy of the layers' weights stacked into one (out, in) matrix."""
    weight = torch.cat([layer.weight.detach() for layer in layers])
    return torch.ops.quantized.linear_prepack_fp16(weight, None)


class OneTokenStep:
    """The step for one new position of a model whose body is a transformers Llama decoder and
    whose every product is the float16 one on a CPU (see `fits`)."""

    def __init__(self, model):
        self.model = model
        self.layers = [(layer, _half_pack(layer.self_attn.q_proj, layer.self_attn.k_proj,
                                          layer.self_attn.v_proj),
                        _half_pack(layer.mlp.gate_proj, layer.mlp.up_proj))
                       for layer in model.model.layers]

    @staticmethod
    def fits(model) -> bool:
        """Whether every product of `model` is the float16 one on a CPU, as this step's are."""
        linears = [m for m in model.modules() if isinstance(m, torch.nn.Linear)]
        return HALF_PRODUCTS and bool(linears) and all(
            isinstance(m, CPULinear) and m.half and m.bias is None and m.weight.device.type == "cpu"
            for m in linears)

    def serves(self, input_ids: torch.Tensor) -> bool:
        """One new position, nothing to learn: the calls this step answers."""
        return input_ids.shape == (1, 1) and not torch.is_grad_enabled() and not self.model.training

    def hidden(self, input_ids: torch.Tensor, cache) -> torch.Tensor:
        """The final norm's output (1, 1, hidden) for one new token after `cache`, which gains
        the token's keys and values in every layer."""
        body = self.model.model
        x = body.embed_tokens(input_ids)  # (1, 1, H)
        position = torch.tensor([[cache.get_seq_length()]], device=x.device)
        cos, sin = body.rotary_emb(x, position)
        for index, (layer, qkv, gate_up) in enumerate(self.layers):
            x = x + self._attention(layer.self_attn, layer.input_layernorm(x), qkv, cos, sin, cache, index)
            x = x + self._mlp(layer.mlp, layer.post_attention_layernorm(x), gate_up)
        return body.norm(x)

    @staticmethod
    def _attention(attn, x, qkv, cos, sin, cache, index):
        heads, head_dim = attn.config.num_attention_heads, attn.head_dim
        kv_heads = attn.config.num_key_value_heads
        out = _product(x[0], qkv)  # (1, (heads + 2 kv_heads) head_dim)
        q, k, v = out.split([heads * head_dim, kv_heads * head_dim, kv_heads * head_dim], -1)
        q = q.view(1, 1, heads, head_dim).transpose(1, 2)
        k = k.view(1, 1, kv_heads, head_dim).transpose(1, 2)
        q, k = apply_rotary_pos_emb(q, k, cos, sin)
        k, v = cache.update(k, v.view(1, 1, kv_heads, head_dim).transpose(1, 2), index)
        mixed = F.scaled_dot_product_attention(q, k, v, scale=attn.scaling, enable_gqa=True)
        return attn.o_proj(mixed.reshape(1, 1, heads * head_dim))

    @staticmethod
    def _mlp(mlp, x, gate_up):
        gate, up = _product(x[0], gate_up).split(mlp.intermediate_size, -1)
        return mlp.down_proj((mlp.act_fn(gate) * up)[None])
