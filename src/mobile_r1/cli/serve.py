"""`mobile-r1 serve --model SPEC --port P`: a local model as an OpenAI-compatible chat-completions endpoint."""

from __future__ import annotations

import typer

from mobile_r1.cli.app import app, console


@app.command()
def serve(
    model: str = typer.Option(..., "--model", help="hf:PATH_OR_ID, a preset (tiny-lm, tiny-vl, smollm2-135m), or 'echo'."),
    port: int = typer.Option(8000, "--port", help="TCP port to listen on."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind (0.0.0.0 to accept other machines)."),
    name: str | None = typer.Option(None, "--name", help="Model name reported by /v1/models (default: the spec)."),
    dtype: str = typer.Option("float32", "--dtype", help="float32, bfloat16 or float16."),
    device: str | None = typer.Option(None, "--device", help="Torch device, e.g. cuda:0 (default: CPU)."),
) -> None:
    """Serve /v1/chat/completions (text and base64 image parts, temperature, max_tokens) and /v1/models."""
    from mobile_r1.serve import make_backend
    from mobile_r1.serve import serve as run_server

    options = {} if model.strip() == "echo" else {"dtype": dtype, "device": device}
    backend = make_backend(model, **options)
    served = name or model
    console.print(f"serving {served!r} on http://{host}:{port}/v1 (Ctrl-C to stop)")
    run_server(backend, host=host, port=port, model_name=served)
