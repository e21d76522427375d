"""`mobile-r1 serve --model SPEC --port P`: a local model as an OpenAI-compatible chat-completions endpoint."""

from __future__ import annotations

import typer

from mobile_r1.cli.app import app, console
from mobile_r1.core.errors import ConfigError


@app.command()
def serve(
    model: str = typer.Option(..., "--model", help="hf:PATH_OR_ID, a preset (tiny-lm, small-lm, tiny-vl, smollm2-135m), or 'echo'."),
    port: int = typer.Option(8000, "--port", help="TCP port to listen on."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind (0.0.0.0 to accept other machines)."),
    name: str | None = typer.Option(None, "--name", help="Model name reported by /v1/models (default: the spec)."),
    dtype: str = typer.Option("float32", "--dtype", help="float32, bfloat16 or float16."),
    device: str | None = typer.Option(None, "--device", help="Torch device, e.g. cuda:0 (default: CPU)."),
    max_batch: int = typer.Option(16, "--max-batch", help="Most completions in one generate call (1: one at a time)."),
    batch_window_ms: float = typer.Option(20.0, "--batch-window-ms", help="How long the first waiting request waits for others to share its call."),
    rejoin_after: int = typer.Option(16, "--rejoin-after", help="Steps after which a running batch makes room for requests that arrived meanwhile."),
    max_tokens: int = typer.Option(512, "--max-tokens", help="Completion length of a request that gives no max_tokens (capped by the context)."),
    max_tokens_limit: int | None = typer.Option(None, "--max-tokens-limit", help="Largest max_tokens a request may ask (default: the context)."),
    max_model_len: int | None = typer.Option(None, "--max-model-len", help="Context length to serve (default and upper bound: the model's)."),
    seed: int = typer.Option(0, "--seed", help="Seed of sampled requests that send none."),
    max_request_mb: float = typer.Option(16.0, "--max-request-mb", help="Largest request body, in MiB (413 past it)."),
    max_image_pixels: int = typer.Option(4096 * 4096, "--max-image-pixels", help="Most pixels of one image."),
    max_total_pixels: int = typer.Option(48 * 2**20, "--max-total-pixels", help="Most pixels of all images of one request."),
    lora_updates: bool = typer.Option(False, "--lora-updates", help="Enable /v1/load_lora_adapter and /v1/unload_lora_adapter (they read folders on this machine)."),
    lora: list[str] = typer.Option([], "--lora", help="NAME=FOLDER: serve a LoRA adapter from the start (repeatable)."),
) -> None:
    """Serve /v1/chat/completions (batched; n, stop, max_tokens, logprobs, seed, streaming, images for VL models,
    return_token_ids), /v1/completions (a text or token-id prompt), /v1/models, /health and, with --lora-updates,
    LoRA adapter hot-swap."""
    from mobile_r1.serve import Engine, ServerSettings, make_chat_model
    from mobile_r1.serve import serve as run_server

    adapters = []
    for item in lora:
        adapter, sep, folder = item.partition("=")
        if not sep or not adapter or not folder:
            raise ConfigError(f"--lora takes NAME=FOLDER, got {item!r}")
        adapters.append((adapter, folder))
    served = name or model
    if model.strip() == "echo":
        chat_model = make_chat_model(model)
        if adapters:
            raise ConfigError("--lora needs a model; 'echo' takes no adapters")
    else:
        chat_model = make_chat_model(model, dtype=dtype, device=device, seed=seed, max_batch=max_batch,
                                     batch_window=batch_window_ms / 1000, rejoin_after=rejoin_after,
                                     default_max_tokens=max_tokens,
                                     max_tokens_limit=max_tokens_limit, max_model_len=max_model_len)
        assert isinstance(chat_model, Engine)
        chat_model.model_name = served
        for adapter, folder in adapters:
            chat_model.load_adapter(adapter, folder)
    settings = ServerSettings(max_request_bytes=int(max_request_mb * 2**20), max_image_pixels=max_image_pixels,
                              max_total_pixels=max_total_pixels, lora_updates=lora_updates)
    console.print(f"serving {served!r} on http://{host}:{port}/v1 (Ctrl-C to stop)")
    run_server(chat_model, host=host, port=port, model_name=served, settings=settings)
