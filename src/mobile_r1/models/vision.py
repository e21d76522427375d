"""A Qwen2/2.5-VL style processor built from the PIL image processor and a tokenizer (no torchvision needed)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

IMAGE_PAD = "<|image_pad|>"


@dataclass
class ImageTextProcessor:
    """Turns chat text with `<|image_pad|>` placeholders plus PIL images into model inputs.

    Each placeholder is expanded to the image's number of merged patches (grid t*h*w / merge_size^2), exactly
    as transformers' Qwen2.5-VL processor does, and images go through `Qwen2VLImageProcessorPil`.
    """

    image_processor: Any
    tokenizer: Any

    @property
    def merge_size(self) -> int:
        return int(getattr(self.image_processor, "merge_size", 2))

    def __call__(self, text: list[str], images: list[Any] | None = None, padding: bool = True) -> dict[str, torch.Tensor]:
        out: dict[str, torch.Tensor] = {}
        if images:
            vision = self.image_processor(images=images, return_tensors="pt")
            grid = vision["image_grid_thw"]
            out["pixel_values"] = vision["pixel_values"]
            out["image_grid_thw"] = grid
            counts = iter((grid.prod(-1) // self.merge_size**2).tolist())
            expanded = []
            for t in text:
                parts = t.split(IMAGE_PAD)
                buf = parts[0]
                for rest in parts[1:]:
                    buf += "<|placeholder|>" * int(next(counts)) + rest
                expanded.append(buf.replace("<|placeholder|>", IMAGE_PAD))
            text = expanded
        enc = self.tokenizer(text, return_tensors="pt", padding=padding, add_special_tokens=False)
        out["input_ids"] = enc["input_ids"]
        out["attention_mask"] = enc["attention_mask"]
        return out

    def apply_chat_template(self, messages: list[dict[str, Any]], **kwargs: Any) -> str | list[int]:
        return self.tokenizer.apply_chat_template(messages, **kwargs)

    def save_pretrained(self, path: str | Path) -> None:
        self.image_processor.save_pretrained(path)
        self.tokenizer.save_pretrained(path)

    @classmethod
    def from_pretrained(cls, path: str | Path, tokenizer: PreTrainedTokenizerBase) -> ImageTextProcessor:
        from transformers import Qwen2VLImageProcessorPil

        return cls(Qwen2VLImageProcessorPil.from_pretrained(path), tokenizer)
