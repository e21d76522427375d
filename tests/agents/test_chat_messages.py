"""Tests of chat-message conversion between HF placeholders, typed messages and OpenAI request bodies."""

from __future__ import annotations

import pytest
from PIL import Image

from mobile_r1.agents.chat import decode_image, encode_image, from_hf, from_openai, to_hf, to_openai
from mobile_r1.core.errors import DataError


def test_round_trip_keeps_prompt_and_pixels() -> None:
    red, blue = Image.new("RGB", (28, 56), (255, 0, 0)), Image.new("RGB", (56, 28), (0, 0, 255))
    hf = [
        {"role": "system", "content": [{"type": "text", "text": "sys "}, {"type": "text", "text": "prompt"}]},
        {"role": "user", "content": [{"type": "text", "text": "look:"}, {"type": "image"}, {"type": "image"}]},
        {"role": "assistant", "content": "ok"},
    ]
    wire = to_openai(from_hf(hf, [red, blue]))
    assert wire[0] == {"role": "system", "content": "sys prompt"}
    assert [p["type"] for p in wire[1]["content"]] == ["text", "image_url", "image_url"]
    assert wire[1]["content"][1]["image_url"]["url"].startswith("data:image/png;base64,")
    back, images = to_hf(from_openai(wire))
    assert back[0] == {"role": "system", "content": "sys prompt"}
    assert back[1]["content"] == [{"type": "text", "text": "look:"}, {"type": "image"}, {"type": "image"}]
    assert back[2] == {"role": "assistant", "content": "ok"}
    assert [im.size for im in images] == [(28, 56), (56, 28)]
    assert images[0].tobytes() == red.tobytes() and images[1].tobytes() == blue.tobytes()


def test_placeholder_and_image_counts_must_agree() -> None:
    with pytest.raises(DataError, match="more image placeholders"):
        from_hf([{"role": "user", "content": [{"type": "image"}]}], [])
    with pytest.raises(DataError, match="left over"):
        from_hf([{"role": "user", "content": "x"}], [Image.new("RGB", (2, 2))])


def test_bad_image_urls_are_rejected() -> None:
    with pytest.raises(DataError, match="data URLs"):
        decode_image("http://example.com/a.png")
    with pytest.raises(DataError, match="cannot decode"):
        decode_image("data:image/png;base64,bm90IGFuIGltYWdl")
    rgba = Image.new("RGBA", (3, 3), (1, 2, 3, 4))
    assert decode_image(encode_image(rgba)).mode == "RGB"


def test_image_pixel_bounds_are_checked_before_decoding() -> None:
    screen = encode_image(Image.new("RGB", (300, 200), (9, 9, 9)))
    assert decode_image(screen, max_pixels=60_000).size == (300, 200)
    with pytest.raises(DataError, match=r"300x200 = 60000 pixels, above the limit of 59999"):
        decode_image(screen, max_pixels=59_999)
    message = {"role": "user", "content": [{"type": "image_url", "image_url": {"url": screen}}] * 3}
    assert len(from_openai([message], max_image_pixels=60_000, max_total_pixels=180_000)[0].images) == 3
    with pytest.raises(DataError, match="more than 179999 pixels in all"):
        from_openai([message], max_image_pixels=60_000, max_total_pixels=179_999)


def test_malformed_openai_messages_are_data_errors() -> None:
    with pytest.raises(DataError, match="message 0: content must be a string or a list of parts, got 5"):
        from_openai([{"role": "user", "content": 5}])
    with pytest.raises(DataError, match="message 0, part 0: expected"):
        from_openai([{"role": "user", "content": ["a"]}])
    with pytest.raises(DataError, match="message 1 must be an object"):
        from_openai([{"role": "user", "content": "x"}, "hello"])  # type: ignore[list-item]
